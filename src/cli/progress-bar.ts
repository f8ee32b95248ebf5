import type { ProgressUpdate } from '../operations/define-operation.js';

interface TtyLike {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/**
 * A one-line progress display on stderr for a proof of work. The search is memoryless, so a bar
 * of tried ÷ expected would stall at 99 %; the line shows hashes, rate and the mean time left.
 */
export function createProgressLine(stream: TtyLike): { update(u: ProgressUpdate): void; done(): void } {
  if (!stream.isTTY) return { update() {}, done() {} };
  let shown = false;
  let last = 0;
  return {
    update(u) {
      const now = Date.now();
      if (now - last < 200) return;
      last = now;
      const width = Math.max(20, (stream.columns ?? 80) - 1);
      stream.write(`\r${u.message.slice(0, width).padEnd(width)}`);
      shown = true;
    },
    done() {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
}
