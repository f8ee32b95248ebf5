import { ObjectIds, remember } from '../object-ids.js';

/**
 * var() substitution (CSS Variables §3): `display: var(--x)` hides text as `display: none` does. Results are
 * bounded in length and depth: nested variables that double at each level would grow exponentially.
 */

/** Longest value a substitution may produce; longer is invalid, as browsers cap it too. */
export const maxResolvedLength = 8192;
const maxDepth = 16;

/** Custom properties in scope: name → value, already resolved. */
export type CustomProperties = ReadonlyMap<string, string>;

/** `value` with every var() replaced; undefined when a reference cannot be resolved. */
export function resolveCssVariables(
  value: string,
  lookup: (name: string, depth: number) => string | undefined,
  depth = 0,
): string | undefined {
  if (depth > maxDepth) return undefined;
  let result = '';
  let from = 0;
  const lower = value.toLowerCase();
  for (let at = lower.indexOf('var(', from); at !== -1; at = lower.indexOf('var(', from)) {
    const close = matchingParen(value, at + 3);
    if (close === -1) return undefined;
    const inner = value.slice(at + 4, close);
    // The name is an identifier, so the first comma ends it; anything else before it makes var() invalid.
    const comma = inner.indexOf(',');
    const name = (comma === -1 ? inner : inner.slice(0, comma)).trim();
    if (!/^--[^\s()'"]*$/.test(name)) return undefined;
    let replacement = lookup(name, depth + 1);
    if (replacement === undefined && comma !== -1)
      replacement = resolveCssVariables(inner.slice(comma + 1), lookup, depth + 1);
    if (replacement === undefined) return undefined;
    result += value.slice(from, at) + replacement;
    if (result.length > maxResolvedLength) return undefined;
    from = close + 1;
  }
  result += value.slice(from);
  return result.length > maxResolvedLength ? undefined : result;
}

/** What var() may still cost in one analysis, in characters; custom properties resolved per parent and declarations. */
export class VariableWork extends ObjectIds {
  charsLeft: number;
  isSpent = false;
  readonly settled = new WeakMap<object, Map<string, CustomProperties>>();

  constructor(limit: number) {
    super();
    this.charsLeft = limit;
  }

  /** Charges a resolved value; false (and spent for good) once the limit is passed. */
  charge(value: string): boolean {
    this.charsLeft -= value.length;
    if (this.charsLeft < 0) this.isSpent = true;
    return !this.isSpent;
  }
}

const noParent = {};

/** An element's custom properties: its parent's overridden by its own, resolved (a cycle is invalid). */
export function inheritCustomProperties(
  parent: CustomProperties | undefined,
  own: ReadonlyMap<string, { value: string }>,
  work: VariableWork,
): CustomProperties {
  const signature = [...own.values()].map((declaration) => work.idOf(declaration)).join(' ');
  const byOwn = remember(work.settled, parent ?? noParent, () => new Map<string, CustomProperties>());
  const known = byOwn.get(signature);
  if (known) return known;
  const resolved = new Map(parent);
  // Each own property is resolved once, or `--b: var(--a) var(--a)` chains would be explored exponentially.
  const settled = new Map<string, string | undefined>();
  const resolving = new Set<string>();
  const lookup = (name: string, depth: number): string | undefined => {
    const raw = own.get(name)?.value;
    if (raw === undefined) return parent?.get(name);
    if (settled.has(name)) return settled.get(name);
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a cycle fails at the depth bound too; this fails it at once
    if (resolving.has(name) || work.isSpent) return undefined;
    resolving.add(name);
    let value = resolveCssVariables(raw, lookup, depth);
    if (value !== undefined && !work.charge(value)) value = undefined;
    resolving.delete(name);
    settled.set(name, value);
    return value;
  };
  for (const name of own.keys()) {
    const value = lookup(name, 0);
    if (value === undefined || value.trim().toLowerCase() === 'initial') resolved.delete(name);
    else resolved.set(name, value);
  }
  byOwn.set(signature, resolved);
  return resolved;
}

/** The index of the parenthesis closing the one at `open`; -1 when there is none. */
function matchingParen(text: string, open: number): number {
  let depth = 0;
  // Stryker disable next-line EqualityOperator: the character past the end is undefined and matches nothing
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i;
    else if (char === '"' || char === "'") {
      const end = text.indexOf(char, i + 1);
      // Stryker disable next-line UnaryOperator: any close before the var( leaves an empty name, refused
      if (end === -1) return -1;
      i = end;
    }
  }
  // Stryker disable next-line UnaryOperator: any close before the var( leaves an empty name, refused
  return -1;
}
