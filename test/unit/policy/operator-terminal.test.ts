import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { requireOperatorAtTerminal } from '../../../src/policy/operator-terminal.js';

/** A stream pair that says it is a terminal, as a TTY's would. */
function terminal(isTTY = { stdin: true, stderr: true }) {
  const stdin = Object.assign(new PassThrough(), { isTTY: isTTY.stdin });
  const stderr = Object.assign(new PassThrough(), { isTTY: isTTY.stderr });
  let shown = '';
  stderr.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  return { streams: { stdin, stderr }, shown: () => shown };
}

const code = async (promise: Promise<unknown>): Promise<string | undefined> => {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error instanceof MailboxError ? error.code : 'not a MailboxError';
  }
};

describe('requireOperatorAtTerminal', () => {
  it('refuses at once, asking nothing, when stdin or stderr is not a terminal', async () => {
    for (const isTTY of [{ stdin: false, stderr: true }, { stdin: true, stderr: false }]) {
      const t = terminal(isTTY);
      expect(await code(requireOperatorAtTerminal(t.streams, 'show held mail'))).toBe('operator_required');
      expect(t.shown()).toBe('');
    }
    expect(await code(requireOperatorAtTerminal(undefined, 'show held mail'))).toBe('operator_required');
  });

  it('shows the change and goes ahead only on yes', async () => {
    const yes = terminal();
    const asked = requireOperatorAtTerminal(yes.streams, 'show held mail');
    yes.streams.stdin.write(' YES \n');
    expect(await code(asked)).toBeUndefined();
    expect(yes.shown()).toBe('show held mail\nType yes to go ahead: ');

    for (const answer of ['no\n', 'y\n', '']) {
      const t = terminal();
      const pending = requireOperatorAtTerminal(t.streams, 'show held mail');
      t.streams.stdin.end(answer);
      expect(await code(pending)).toBe('operator_required');
    }
  });
});
