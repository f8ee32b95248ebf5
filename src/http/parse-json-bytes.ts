/**
 * V8 keeps a string over 128 KiB in its large-object space, where making one costs milliseconds on agents' VMs (one
 * hostile mail's headers made most of a listing's cost). A large answer is walked over its bytes and each value under
 * the limit parsed by JSON.parse, so values are exactly JSON.parse's; what the walk refuses goes to JSON.parse whole.
 */

// Bytes; beyond Latin-1 a string takes two bytes a character, so this many UTF-8 bytes stay under 128 KiB either way.
const pieceBytes = 60 * 1024;
// Deeper than this, the walk stops and the whole answer goes to JSON.parse (which nests without limit).
const maxLargeDepth = 64;

const quote = 0x22;
const backslash = 0x5c;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const comma = 0x2c;
const colon = 0x3a;

/** JSON.parse(bytes.toString('utf8')), without ever decoding more than a piece of the bytes at once. */
export function parseJsonBytes(bytes: Buffer): unknown {
  if (bytes.length <= pieceBytes) return JSON.parse(bytes.toString('utf8'));
  const walk = new PiecewiseWalk(bytes);
  const value = walk.document();
  return value === notAccepted ? JSON.parse(bytes.toString('utf8')) : value;
}

/** A response's JSON, or undefined when its body is not JSON. */
export function jsonOrUndefined(response: { json(): unknown }): unknown {
  try {
    return response.json();
  } catch {
    return undefined;
  }
}

const notAccepted = Symbol('not accepted');

class PiecewiseWalk {
  private at = 0;
  private depth = 0;

  constructor(private readonly bytes: Buffer) {}

  document(): unknown {
    const value = this.value();
    if (value === notAccepted) return notAccepted;
    this.skipWhitespace();
    return this.at === this.bytes.length ? value : notAccepted;
  }

  private value(): unknown {
    this.skipWhitespace();
    const first = this.bytes[this.at];
    if (first === openBrace || first === openBracket) {
      const end = this.containerEnd(this.at);
      return end === undefined ? this.largeContainer(first === openBrace) : this.parsePiece(this.at, end);
    }
    const end = first === quote ? this.stringEnd(this.at) : this.tokenEnd(this.at);
    if (end === undefined || end === this.at) return notAccepted;
    return this.parsePiece(this.at, end);
  }

  /** An object or array longer than a piece, member by member. */
  private largeContainer(isObject: boolean): unknown {
    if (++this.depth > maxLargeDepth) return notAccepted;
    const container: Record<string, unknown> | unknown[] = isObject ? {} : [];
    const end = isObject ? closeBrace : closeBracket;
    this.at += 1;
    this.skipWhitespace();
    if (this.bytes[this.at] === end) return this.close(container);
    for (;;) {
      const key = isObject ? this.memberKey() : undefined;
      if (key === notAccepted) return notAccepted;
      const member = this.value();
      if (member === notAccepted) return notAccepted;
      // As JSON.parse does: an own data property even for "__proto__", the last of duplicates winning in the first's place.
      if (key === undefined) (container as unknown[]).push(member);
      else
        Object.defineProperty(container, key, { value: member, writable: true, enumerable: true, configurable: true });
      this.skipWhitespace();
      const next = this.bytes[this.at];
      if (next === end) return this.close(container);
      if (next !== comma) return notAccepted;
      this.at += 1;
    }
  }

  /** An object member's key and its colon. */
  private memberKey(): string | typeof notAccepted {
    this.skipWhitespace();
    if (this.bytes[this.at] !== quote) return notAccepted;
    const keyEnd = this.stringEnd(this.at);
    if (keyEnd === undefined) return notAccepted;
    const key = this.parsePiece(this.at, keyEnd);
    this.skipWhitespace();
    if (typeof key !== 'string' || this.bytes[this.at] !== colon) return notAccepted;
    this.at += 1;
    return key;
  }

  private close<T>(container: T): T {
    this.at += 1;
    this.depth -= 1;
    return container;
  }

  /** Decodes and parses one value that lies whole in [start, end), moving past it. */
  private parsePiece(start: number, end: number): unknown {
    this.at = end;
    try {
      return JSON.parse(this.bytes.toString('utf8', start, end)) as unknown;
    } catch {
      return notAccepted;
    }
  }

  /** The end of the container opening at `start` when it ends within a piece's length, else undefined. */
  private containerEnd(start: number): number | undefined {
    const limit = Math.min(this.bytes.length, start + pieceBytes);
    let open = 0;
    for (let index = start; index < limit; index += 1) {
      const byte = this.bytes[index];
      if (byte === quote) {
        const end = this.stringEnd(index);
        if (end === undefined) return undefined;
        index = end - 1;
      } else if (byte === openBrace || byte === openBracket) open += 1;
      else if (byte === closeBrace || byte === closeBracket) {
        open -= 1;
        if (open === 0) return index + 1;
      }
    }
    return undefined;
  }

  /** Just past the quote that closes the string opening at `start` (an escaped quote does not close it). */
  private stringEnd(start: number): number | undefined {
    let index = start;
    for (;;) {
      index = this.bytes.indexOf(quote, index + 1);
      if (index < 0) return undefined;
      let escapes = 0;
      while (this.bytes[index - 1 - escapes] === backslash) escapes += 1;
      if (escapes % 2 === 0) return index + 1;
    }
  }

  /** The end of a number, `true`, `false` or `null`: the bytes up to the next that may follow a value. */
  private tokenEnd(start: number): number {
    let index = start;
    while (index < this.bytes.length && !endsToken(this.bytes[index] as number)) index += 1;
    return index;
  }

  private skipWhitespace(): void {
    while (isWhitespace(this.bytes[this.at])) this.at += 1;
  }
}

// JSON's four whitespace bytes, and nothing else (JSON.parse refuses a no-break space or a BOM).
function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function endsToken(byte: number): boolean {
  return isWhitespace(byte) || byte === comma || byte === closeBrace || byte === closeBracket;
}
