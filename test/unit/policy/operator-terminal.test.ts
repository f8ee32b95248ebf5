import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { askOperator } from '../../../src/policy/operator-terminal.js';

function terminal(
  answer: string,
  isTTY = { input: true, output: true },
): {
  input: PassThrough & { isTTY?: boolean };
  output: { write(text: string): boolean; isTTY: boolean; text: string };
} {
  const input = Object.assign(new PassThrough(), { isTTY: isTTY.input });
  const output = {
    text: '',
    isTTY: isTTY.output,
    write(text: string) {
      output.text += text;
      return true;
    },
  };
  setImmediate(() => input.end(answer));
  return { input, output };
}

describe('the operator at a terminal', () => {
  it('shows the change and goes ahead on yes', async () => {
    const t = terminal('yes\n');
    await askOperator(t, 'policy allow-send', ['This widens:', '  - send allow + example.org']);
    expect(t.output.text).toContain('send allow + example.org');
    expect(t.output.text).toContain('policy allow-send: type yes to go ahead');
  });

  it('refuses anything but yes, changing nothing', async () => {
    const error = await askOperator(terminal('y\n'), 'policy set', []).catch((e: unknown) => e);
    expect((error as MailboxError).code).toBe('cancelled');
  });

  it('needs both stdin and stderr to be a terminal: otherwise operator_required, asked nothing', async () => {
    for (const isTTY of [
      { input: false, output: true },
      { input: true, output: false },
    ]) {
      const t = terminal('yes\n', isTTY);
      const error = await askOperator(t, 'policy unlist', ['x']).catch((e: unknown) => e);
      expect((error as MailboxError).code).toBe('operator_required');
      expect(t.output.text).toBe('');
    }
    expect(((await askOperator(undefined, 'outbox approve', []).catch((e: unknown) => e)) as MailboxError).code).toBe(
      'operator_required',
    );
  });
});
