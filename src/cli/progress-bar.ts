import type { ProgressUpdate } from '../operations/define-operation.js';

/** Lines of their own come at most this often: a narrow terminal scrolls, it should not flood. */
const lineModeIntervalMs = 1_000;

/**
 * A proof of work is memoryless (a bar would stall at 99 %): hashes, rate and mean time left, rewritten
 * in place when the line fits, else each update a line of its own (a wrapped one cannot be rewritten).
 */
export function createProgressLine(
  stream: { isTTY?: boolean; columns?: number; write(text: string): unknown },
  now: () => number = Date.now,
): { update(u: ProgressUpdate): void; done(): void } {
  if (!stream.isTTY) return { update() {}, done() {} };
  let shown = false;
  let last = Number.NEGATIVE_INFINITY;
  return {
    update(u) {
      const width = (stream.columns ?? 80) - 1;
      const text = fitting(u.message, width);
      const inPlace = text !== undefined;
      const at = now();
      if (at - last < (inPlace ? 200 : lineModeIntervalMs)) return;
      last = at;
      if (inPlace) {
        stream.write(`\r${text.padEnd(width)}`);
        shown = true;
      } else {
        // A rewritten line in progress is ended first, so the next one starts on a line of its own.
        stream.write(`${shown ? '\r\x1b[2K' : ''}${u.message}\n`);
        shown = false;
      }
    },
    done() {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
}

/** The message if it fits, else without its asides, else without its last parts (hashes and rate kept). */
function fitting(message: string, width: number): string | undefined {
  if (width < 20) return undefined;
  if (message.length <= width) return message;
  const parts = message
    .replace(/\s*\([^()]*\)/g, '')
    .replace(/\.$/, '')
    .split(', ');
  for (let keep = parts.length; keep >= Math.min(2, parts.length); keep--) {
    const short = `${parts.slice(0, keep).join(', ')}${keep < parts.length ? ' …' : '.'}`;
    if (short.length <= width) return short;
  }
  return undefined;
}
