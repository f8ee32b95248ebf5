import * as z from 'zod';
import type { PolicyChange } from '../../policy/policy-change.js';
import { defineLazyOperation, writesLocal } from '../define-operation.js';
import { loadHandlers } from '../handlers/load.js';
import { policyChangeOutput, runPolicyChange } from './policy-change-run.js';
import { MailboxError } from '../../errors.js';
import { policyTargetInput } from './policy-target.js';

/**
 * The list commands: allow-send, block-send, allow-receive, block-receive and unlist. Entries are
 * addresses or domains (a domain covers its subdomains), stored in one canonical spelling.
 * Allowing and unlisting widen (the operator at a terminal); blocking narrows.
 */

const entriesInput = z
  .array(z.string())
  .min(1, 'give at least one address or domain')
  .describe('Addresses (ana@example.org) or domains (example.org, covering its subdomains).');

/** `list` absent: unlist. */
function listCommand(
  word: string,
  description: string,
  list?: Omit<PolicyChange & { kind: 'list' }, 'kind' | 'entries'>,
) {
  const name = `policy_${word.replace(/-/g, '_')}`;
  return defineLazyOperation({
    name,
    title: description.split('.')[0] ?? name,
    description,
    schemas: () => ({
      input: z.object({ entries: entriesInput, ...policyTargetInput() }),
      output: policyChangeOutput(),
    }),
    annotations: writesLocal,
    doors: ['cli'],
    cli: { path: ['policy', word], positional: 'entries', configOptions: false },
    present: (result) => ({ lead: [result.summary] }),
    async run(input, ctx) {
      const { canonicalEntries } = await loadHandlers();
      const { entries, invalid } = canonicalEntries(input.entries);
      if (invalid.length > 0)
        throw new MailboxError({
          code: 'invalid_input',
          message: `Not an address or a domain: ${invalid.map((e) => JSON.stringify(e)).join(', ')}; nothing was changed.`,
          hint: 'Give addresses (ana@example.org) or domains (example.org, which covers its subdomains).',
        });
      const change: PolicyChange = list ? { kind: 'list', ...list, entries } : { kind: 'unlist', entries };
      return runPolicyChange(ctx, input, change, `policy ${word}`);
    },
  });
}

/** The list commands of the operations table, in help order. */
export const policyListOperations = [
  listCommand('allow-send', 'Allow sending to addresses or domains. Needs the operator at a terminal.', {
    direction: 'send',
    list: 'allow',
  }),
  listCommand('block-send', 'Block sending to addresses or domains, in every mode.', {
    direction: 'send',
    list: 'block',
  }),
  listCommand(
    'allow-receive',
    'Allow mail from addresses or domains (when its sender authentication passed). Needs the operator at a terminal.',
    { direction: 'receive', list: 'allow' },
  ),
  listCommand('block-receive', 'Hold back mail from addresses or domains, in every mode.', {
    direction: 'receive',
    list: 'block',
  }),
  listCommand(
    'unlist',
    'Remove addresses or domains from every send and receive list of the layer. Needs the operator at a terminal (it may lift a block).',
  ),
];
