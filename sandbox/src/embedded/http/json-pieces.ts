/**
 * V8 keeps a string over 128 KiB in its large-object space, where making one (as the socket does
 * when it flattens JSON.stringify's output) cost ~3 ms on a busy machine against ~0.1 ms at 125 KB.
 * A large answer, such as a header section near the cap asked for whole, is therefore serialised
 * value by value and sent in chunks well under that size; only a single string value that large
 * still makes one.
 */
// In characters: a string holding any character beyond Latin-1 takes two bytes for each.
const wholeChars = 48 * 1024;
const chunkChars = 32 * 1024;

/** The UTF-8 bytes of JSON.stringify(value), as one chunk or, for a large answer, several. */
export function jsonChunks(value: unknown): Buffer[] {
  // Measured before it is made: JSON.stringify of the whole would itself be the large string.
  if (!isPlainContainer(value) || roughLength(value, wholeChars) <= wholeChars) {
    const whole = JSON.stringify(value) as string | undefined;
    return whole === undefined ? [] : [Buffer.from(whole)];
  }
  const pieces: string[] = [];
  pushPieces(value, pieces);
  const chunks: Buffer[] = [];
  let chunk = '';
  for (const piece of pieces) {
    if (chunk.length && chunk.length + piece.length > chunkChars) {
      chunks.push(Buffer.from(chunk));
      chunk = '';
    }
    chunk += piece;
  }
  if (chunk.length) chunks.push(Buffer.from(chunk));
  return chunks;
}

// Pieces concatenate to exactly JSON.stringify(node): its own output for every value that is not a
// plain object or array, and its rules (key order, skipped and null-ed entries) for those.
function pushPieces(node: object, pieces: string[]): void {
  if (Array.isArray(node)) {
    pieces.push('[');
    // By index, not forEach: a hole is null in JSON too.
    for (let index = 0; index < node.length; index += 1) {
      if (index) pieces.push(',');
      if (!pushValue(node[index], pieces)) pieces.push('null');
    }
    pieces.push(']');
    return;
  }
  const record = node as Record<string, unknown>;
  let separator = '{';
  for (const key of Object.keys(record)) {
    const keyPiece = `${separator}${JSON.stringify(key)}:`;
    pieces.push(keyPiece);
    if (pushValue(record[key], pieces)) separator = ',';
    else pieces.pop();
  }
  pieces.push(separator === '{' ? '{}' : '}');
}

/** Pushes a value's pieces; false when JSON.stringify would leave it out. */
function pushValue(value: unknown, pieces: string[]): boolean {
  if (isPlainContainer(value)) {
    pushPieces(value, pieces);
    return true;
  }
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) return false;
  pieces.push(text);
  return true;
}

/**
 * About the length of JSON.stringify(node), counting no escapes, and counting no further once past
 * `stop`: only whether the whole stays small is asked, and a guess that is short only costs speed.
 */
function roughLength(node: unknown, stop: number): number {
  if (typeof node === 'string') return node.length + 2;
  if (!isPlainContainer(node)) return 24;
  let length = 2;
  if (Array.isArray(node)) {
    for (const item of node as unknown[]) {
      length += roughLength(item, stop - length) + 1;
      if (length > stop) break;
    }
    return length;
  }
  for (const [key, item] of Object.entries(node)) {
    length += key.length + 4 + roughLength(item, stop - length);
    if (length > stop) break;
  }
  return length;
}

function isPlainContainer(node: unknown): node is object {
  if (typeof node !== 'object' || node === null) return false;
  if (typeof (node as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(node)) return true;
  const prototype: unknown = Object.getPrototypeOf(node);
  return prototype === Object.prototype || prototype === null;
}
