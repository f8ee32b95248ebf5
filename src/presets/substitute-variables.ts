import { MailboxError } from '../errors.js';

/** `$NAME` substitution on parsed ops, never JSON text, so no value can break the request (live-service.md bug 1). */

export const variableNamePattern = /^[A-Z][A-Z0-9_]*$/;

// A name ends at a word boundary, so JMAP keywords such as `$Forwarded`, `$seen`, `$draft` are
// never variables (the reference client read `$Forwarded` as `$F`). `$$` is a literal `$`.
const tokenPattern = /\$\$|\$([A-Z][A-Z0-9_]*)(?![A-Za-z0-9_])/g;
const wholePattern = /^\$([A-Z][A-Z0-9_]*)$/;

/** An optional variable not given: its whole-string placeholder removes its property or array element. */
export const omitValue: unique symbol = Symbol('omit');

export function substituteVariables<T>(
  value: T,
  vars: Readonly<Record<string, unknown>>,
  /** keepMissing: leave unknown names visible as `$NAME` instead of failing (dry runs), listed in `missing`. */
  options: { keepMissing?: boolean } = {},
): { value: T; missing: string[] } {
  const missing = new Set<string>();
  const has = (name: string): boolean => Object.prototype.hasOwnProperty.call(vars, name) && vars[name] !== undefined;

  const inText = (text: string): string =>
    text.replace(tokenPattern, (token, name: string | undefined) => {
      if (name === undefined) return '$';
      if (!has(name)) {
        missing.add(name);
        return token;
      }
      const v = vars[name];
      if (v === omitValue) return '';
      return typeof v === 'string' ? v : JSON.stringify(v);
    });

  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const whole = wholePattern.exec(node);
      if (whole?.[1] !== undefined) {
        const name = whole[1];
        if (!has(name)) {
          missing.add(name);
          return node;
        }
        // A whole-string placeholder takes the variable's JSON value: a number stays a number.
        const v = vars[name];
        return v === omitValue ? omitValue : structuredClone(v);
      }
      return inText(node);
    }
    if (Array.isArray(node)) return node.map(walk).filter((child) => child !== omitValue);
    if (node === null || typeof node !== 'object') return node;
    // Built by fromEntries: a "__proto__" key stays a field, as JSON.parse made it, and never becomes a prototype.
    const kept = Object.entries(node).flatMap(([key, child]) => {
      const replaced = walk(child);
      return replaced === omitValue ? [] : [[inText(key), replaced] as const];
    });
    return Object.fromEntries(kept);
  };

  const walked = walk(value);
  const result = (walked === omitValue ? null : walked) as T;
  const names = [...missing].sort();
  if (names.length > 0 && !options.keepMissing) throw varsMissingError(names);
  return { value: result, missing: names };
}

/** The one error naming every missing variable at once. */
export function varsMissingError(names: readonly string[]): MailboxError {
  const list = names.map((n) => `$${n}`).join(', ');
  return new MailboxError({
    code: 'vars_missing',
    message: `No value for ${names.length === 1 ? 'placeholder' : 'placeholders'} ${list}.`,
    hint: `Pass them in vars, e.g. {${names.map((n) => `"${n}": "…"`).join(', ')}}; write $$ for a literal dollar sign.`,
    details: { missing: [...names] },
    next: { operation: 'help', input: { topic: 'presets' } },
  });
}
