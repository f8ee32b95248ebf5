import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { MailboxError } from '../errors.js';

/**
 * The operator at a terminal: what widening a rule needs. An agent may run this CLI (shell agents
 * do), but it has no terminal of its own: stdin and stderr must both be TTYs, the change is shown
 * on stderr, and the operator types `yes`. Anything else changes nothing.
 */

export interface TerminalStreams {
  stdin?: Readable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
}

/** Shows `change` and waits for `yes`; throws operator_required (exit 3) without a terminal or a yes. */
export async function requireOperatorAtTerminal(streams: TerminalStreams | undefined, change: string): Promise<void> {
  const stdin = streams?.stdin;
  if (!stdin?.isTTY || !streams?.stderr.isTTY) {
    throw new MailboxError({
      code: 'operator_required',
      message: `This needs the operator at a terminal (${change}); nothing was done.`,
      hint: 'Only your operator can do this, by running the command themselves at a terminal.',
    });
  }
  const answer = await askLine(stdin, streams.stderr, `${change}\nType yes to go ahead: `);
  if (answer.trim().toLowerCase() !== 'yes') {
    throw new MailboxError({ code: 'operator_required', message: 'The operator did not type yes; nothing was done.', hint: 'Run the command again and type yes to go ahead.' });
  }
}

function askLine(input: Readable, output: Writable, question: string): Promise<string> {
  const lines = createInterface({ input, output, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      lines.close();
      resolve(line);
    });
    // End of input before a line is no yes.
    lines.once('close', () => {
      if (!answered) resolve('');
    });
    output.write(question);
  });
}
