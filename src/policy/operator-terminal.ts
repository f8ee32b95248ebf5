import { MailboxError } from '../errors.js';

/**
 * What every widening command needs: an agent runs this CLI with pipes, so it changes nothing there; a person sees
 * the change and types `yes`. This binds an agent that uses the tool, not one faking a terminal (docs/security.md).
 */

export interface OperatorTerminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: { write(text: string): unknown; isTTY?: boolean };
}

/** Throws unless the operator, at a terminal, read `lines` and typed yes. Nothing must have changed before. */
export async function askOperator(
  terminal: OperatorTerminal | undefined,
  action: string,
  lines: readonly string[],
): Promise<void> {
  if (terminal?.input.isTTY !== true || terminal.output.isTTY !== true)
    throw new MailboxError({
      code: 'operator_required',
      message: `${action} needs the operator at a terminal (stdin and stderr must be a terminal); nothing was changed.`,
      hint: "This loosens the operator's rules, so only a person at a terminal may do it: ask your operator to run the same command themselves.",
    });
  terminal.output.write(`${[...lines].join('\n')}\n${action}: type yes to go ahead: `);
  // The terminal itself echoes and edits the line (cooked mode); one line is the answer.
  // Imported here: node:readline loads four node modules that every other command would pay for.
  const { createInterface } = await import('node:readline');
  const reader = createInterface({ input: terminal.input, crlfDelay: Infinity });
  let answer = '';
  try {
    for await (const line of reader) {
      answer = line;
      break;
    }
  } finally {
    reader.close();
  }
  if (answer.trim().toLowerCase() !== 'yes')
    throw new MailboxError({
      code: 'cancelled',
      message: `${action}: the answer was not yes; nothing was changed.`,
      hint: 'Run the command again and type yes to go ahead.',
    });
}
