import * as z from 'zod';
import type { EffectivePolicy } from '../../policy/effective-policy.js';
import { defineLazyOperation, readsLocal } from '../define-operation.js';
import { loadHandlers } from '../handlers/load.js';
import { policyTarget, policyTargetInput } from './policy-target.js';

type Sourced = { value: unknown; from: string };
const sourced = (value: Sourced | null): string => (value === null ? 'none' : `${String(value.value)} (${value.from})`);
const listed = (list: Sourced[], empty: string, by = ', '): string =>
  list.length === 0 ? empty : list.map(sourced).join(by);

function render(result: { policy?: EffectivePolicy; layers: EffectivePolicy['layers'] }): string {
  const lines: string[] = [];
  const p = result.policy;
  if (p) {
    const entries = (list: { entry: string; from: string }[]): string =>
      list.length === 0 ? 'none' : list.map((e) => `${e.entry} (${e.from})`).join(', ');
    lines.push(
      'Send (the strictest layer wins; block-lists apply in every mode):',
      `  modes: ${listed(p.send.modes, 'open (default)')}`,
      `  allow: ${entries(p.send.allow)}`,
      `  block: ${entries(p.send.block)}`,
      `  max sends per hour: ${sourced(p.send.maxSendsPerHour)}; per day: ${sourced(p.send.maxSendsPerDay)}; recipients per mail: ${sourced(p.send.maxRecipients)}`,
      `  secret scan: ${sourced(p.send.secretScan)}`,
      `  attachments from: ${listed(p.send.attachFrom, 'anywhere', ' and ')}`,
      'Receive:',
      `  modes: ${listed(p.receive.modes, 'open (default)')}`,
      `  allow: ${entries(p.receive.allow)}`,
      `  block: ${entries(p.receive.block)}`,
      `New inboxes: ${sourced(p.newInboxes)}`,
    );
  } else
    lines.push(
      'The effective policy cannot be computed: a layer is broken (below). Until it is repaired nothing is sent under it.',
    );
  lines.push(
    'Layers:',
    ...result.layers.map(
      (l) => `  ${l.layer}: ${l.path} ${l.error ? `BROKEN: ${l.error}` : l.present ? '(present)' : '(absent)'}`,
    ),
  );
  return lines.join('\n');
}

export const policyShowOperation = defineLazyOperation({
  name: 'policy_show',
  title: "Show the operator's policy",
  description:
    'Print the effective policy (send and receive rules, caps, secret scan, new inboxes) with the layer each rule comes from, and every layer file with its state.',
  schemas: () => ({
    input: z.object(policyTargetInput()),
    output: z.looseObject({
      layers: z.array(z.looseObject({ layer: z.string(), path: z.string(), present: z.boolean() })),
    }),
  }),
  annotations: readsLocal,
  doors: ['cli'],
  cli: { path: ['policy', 'show'] },
  present: (result) => {
    const policy = result.send === undefined ? undefined : (result as unknown as EffectivePolicy);
    return { text: render({ layers: result.layers as EffectivePolicy['layers'], policy }), isError: !policy };
  },
  async run(input, ctx) {
    const { describeLayers, effectivePolicy, loadPolicyLayers } = await loadHandlers();
    const target = await policyTarget(ctx, input);
    const layers = await loadPolicyLayers(target.paths);
    const broken = layers.some((l) => l.error);
    return broken ? { layers: describeLayers(layers) } : { ...effectivePolicy(layers) };
  },
});
