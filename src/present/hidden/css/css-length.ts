/** CSS lengths in px, with calc(), min(), max() and clamp(): `font-size: calc(0px)` hides text all the same. */

/** What relative units resolve against for one element. */
export interface LengthBasis {
  fontPx: number;
  rootFontPx: number;
  /** What 100% is, in px; undefined when a percentage cannot be resolved (then it stays unknown). */
  percentOf: number | undefined;
  viewportWidth: number;
  viewportHeight: number;
  /** Quirks mode reads a unitless non-zero number as px. */
  isQuirks: boolean;
}

interface Quantity {
  value: number;
  isLength: boolean;
}

const absoluteUnits: Readonly<Record<string, number>> = {
  px: 1,
  pt: 96 / 72,
  pc: 16,
  in: 96,
  cm: 96 / 2.54,
  mm: 96 / 25.4,
  q: 96 / 101.6,
};
// Values past this are not lengths a style sheet needs; long ones are refused before any work.
const maxValueLength = 512;
const maxNesting = 16;
// A number and its unit, a function's name, a symbol, or a `+` or `-` between two spaces: calc()
// needs the spaces (CSS Values 4 §10.1), since `1px+ 2px` or `1px -2px` is no sum.
const token = /\s*(?:([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(%|[a-z]+)?|([a-z-]+)\(|([*/(),]))|\s+([+-])(?=\s)/giy;

/** A length value in px, or undefined when it is not one this evaluator can resolve. */
export function resolveLength(text: string, basis: LengthBasis): number | undefined {
  const value = text.trim().toLowerCase();
  if (value === '' || value.length > maxValueLength) return undefined;
  const parser = new LengthParser(value, basis);
  const result = parser.parseValue();
  if (!result?.isLength || !parser.atEnd()) return undefined;
  return Number.isFinite(result.value) ? result.value : undefined;
}

class LengthParser {
  private position = 0;
  private peeked: RegExpExecArray | null | undefined;

  constructor(
    private readonly text: string,
    private readonly basis: LengthBasis,
  ) {}

  atEnd(): boolean {
    return !this.peeked && this.text.slice(this.position).trim() === '';
  }

  private peek(): RegExpExecArray | null {
    if (this.peeked !== undefined) return this.peeked;
    token.lastIndex = this.position;
    const match = token.exec(this.text);
    if (match) this.position = token.lastIndex;
    this.peeked = match;
    return match;
  }

  private take(): RegExpExecArray | null {
    const match = this.peek();
    this.peeked = undefined;
    return match;
  }

  private takeSymbol(symbol: string): boolean {
    if (this.peek()?.[4] !== symbol) return false;
    this.take();
    return true;
  }

  /** A number with its unit or a math function; a unitless number is a length only as 0, or in quirks mode. */
  parseValue(): Quantity | undefined {
    const [, number, unit, fn] = this.take() ?? [];
    if (number !== undefined)
      return unit === undefined && (Number(number) === 0 || this.basis.isQuirks)
        ? { value: Number(number), isLength: true }
        : this.quantity(Number(number), unit);
    return fn === undefined ? undefined : this.parseFunction(fn, 1);
  }

  private parseSum(depth: number): Quantity | undefined {
    let left = this.parseProduct(depth);
    while (left) {
      const operator = this.peek()?.[5];
      if (operator !== '+' && operator !== '-') return left;
      this.take();
      const right = this.parseProduct(depth);
      if (!right || right.isLength !== left.isLength) return undefined;
      left = { value: operator === '+' ? left.value + right.value : left.value - right.value, isLength: left.isLength };
    }
    return undefined;
  }

  private parseProduct(depth: number): Quantity | undefined {
    let left = this.parseTerm(depth);
    while (left) {
      const operator = this.peek()?.[4];
      if (operator !== '*' && operator !== '/') return left;
      this.take();
      const right = this.parseTerm(depth);
      if (!right) return undefined;
      if (operator === '*') {
        if (left.isLength && right.isLength) return undefined;
        left = { value: left.value * right.value, isLength: left.isLength || right.isLength };
      } else {
        if (right.isLength || right.value === 0) return undefined;
        left = { value: left.value / right.value, isLength: left.isLength };
      }
    }
    return undefined;
  }

  private parseTerm(depth: number): Quantity | undefined {
    if (depth > maxNesting) return undefined;
    const [, number, unit, fn, symbol] = this.take() ?? [];
    if (number !== undefined) return this.quantity(Number(number), unit);
    if (symbol === '(') return this.closeWith(this.parseSum(depth + 1));
    return fn === undefined ? undefined : this.parseFunction(fn, depth + 1);
  }

  private parseFunction(fn: string, depth: number): Quantity | undefined {
    if (fn === 'calc') return this.closeWith(this.parseSum(depth));
    if (fn !== 'min' && fn !== 'max' && fn !== 'clamp') return undefined;
    const args: Quantity[] = [];
    do {
      const arg = this.parseSum(depth);
      if (!arg) return undefined;
      args.push(arg);
    } while (this.takeSymbol(','));
    if (!this.takeSymbol(')') || args.some((a) => a.isLength !== args[0]?.isLength)) return undefined;
    const values = args.map((a) => a.value);
    const isLength = args[0]?.isLength ?? false;
    if (fn === 'min') return { value: Math.min(...values), isLength };
    if (fn === 'max') return { value: Math.max(...values), isLength };
    const [low, middle, high] = values;
    if (values.length !== 3 || low === undefined || middle === undefined || high === undefined) return undefined;
    return { value: Math.max(low, Math.min(middle, high)), isLength };
  }

  private closeWith(inner: Quantity | undefined): Quantity | undefined {
    return inner && this.takeSymbol(')') ? inner : undefined;
  }

  private quantity(value: number, unit: string | undefined): Quantity | undefined {
    const b = this.basis;
    if (unit === undefined) return { value, isLength: false };
    if (unit === '%')
      return b.percentOf === undefined
        ? value === 0
          ? { value: 0, isLength: true }
          : undefined
        : { value: (value * b.percentOf) / 100, isLength: true };
    const absolute = absoluteUnits[unit];
    if (absolute !== undefined) return { value: value * absolute, isLength: true };
    const relative: Record<string, number> = {
      em: b.fontPx,
      rem: b.rootFontPx,
      ex: b.fontPx / 2,
      ch: b.fontPx / 2,
      cap: b.fontPx * 0.7,
      ic: b.fontPx,
      lh: b.fontPx * 1.2,
      rlh: b.rootFontPx * 1.2,
      vw: b.viewportWidth / 100,
      vh: b.viewportHeight / 100,
      vmin: Math.min(b.viewportWidth, b.viewportHeight) / 100,
      vmax: Math.max(b.viewportWidth, b.viewportHeight) / 100,
    };
    const factor = relative[unit];
    return factor === undefined ? undefined : { value: value * factor, isLength: true };
  }
}
