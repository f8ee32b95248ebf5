import * as z from 'zod';
import type { PolicyChange } from '../../policy/policy-change.js';
import { defineLazyOperation, writesLocal } from '../define-operation.js';
import { loadHandlers } from '../handlers/load.js';
import { policyChangeOutput, refuseInvalidEntries, runPolicyChange } from './policy-change-run.js';
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

function listCommand(
  name: string,
  words: readonly [string, string],
  description: string,
  change: (entries: string[]) => PolicyChange,
) {
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
    cli: { path: words, positional: 'entries', configOptions: false },
    present: (result) => ({ lead: [result.summary] }),
    async run(input, ctx) {
      const { canonicalEntries } = await loadHandlers();
      const { entries, invalid } = canonicalEntries(input.entries);
      refuseInvalidEntries(invalid);
      return runPolicyChange(ctx, input, change(entries), `policy ${words[1]}`);
    },
  });
}

export const policyAllowSendOperation = listCommand(
  'policy_allow_send',
  ['policy', 'allow-send'],
  'Allow sending to addresses or domains. Needs the operator at a terminal.',
  (entries) => ({ kind: 'list', direction: 'send', list: 'allow', entries }),
);
export const policyBlockSendOperation = listCommand(
  'policy_block_send',
  ['policy', 'block-send'],
  'Block sending to addresses or domains, in every mode.',
  (entries) => ({ kind: 'list', direction: 'send', list: 'block', entries }),
);
export const policyAllowReceiveOperation = listCommand(
  'policy_allow_receive',
  ['policy', 'allow-receive'],
  'Allow mail from addresses or domains (when its sender authentication passed). Needs the operator at a terminal.',
  (entries) => ({ kind: 'list', direction: 'receive', list: 'allow', entries }),
);
export const policyBlockReceiveOperation = listCommand(
  'policy_block_receive',
  ['policy', 'block-receive'],
  'Hold back mail from addresses or domains, in every mode.',
  (entries) => ({ kind: 'list', direction: 'receive', list: 'block', entries }),
);
export const policyUnlistOperation = listCommand(
  'policy_unlist',
  ['policy', 'unlist'],
  'Remove addresses or domains from every send and receive list of the layer. Needs the operator at a terminal (it may lift a block).',
  (entries) => ({ kind: 'unlist', entries }),
);
