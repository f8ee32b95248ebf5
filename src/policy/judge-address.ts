import { findMatch, type NormalisedAddress } from './address-matcher.js';
import { assertUsable, type LoadedLayer } from './policy-layers.js';
import type { PolicyLayer } from './policy-schema.js';

/**
 * Per-address verdicts under every layer at once. Each layer judges with its own mode and allow-list
 * (one layer's allow-list never widens another's mode); every block-list applies in every mode; the
 * strictest verdict of the layers wins: refuse > confirm > allow.
 */

/** The rule that decided a verdict, for the refusal text and the audit log. */
export interface DecidingRule {
  layer: PolicyLayer | 'default';
  /** e.g. `send.block`, `send.mode=allowlist`, `receive.mode=allowlist`. */
  rule: string;
  /** The list entry that matched, for block-list refusals. */
  entry?: string;
}

type SendVerdict = { verdict: 'allow' | 'confirm' | 'refuse'; rule: DecidingRule };

const verdictRank = { allow: 0, confirm: 1, refuse: 2 } as const;

/** `isKnown`: this inbox wrote to the address, or its mail passed sender authentication (the caller works that out). */
export function judgeRecipient(
  layers: readonly LoadedLayer[],
  address: NormalisedAddress,
  facts: { isKnown: boolean },
): SendVerdict {
  assertUsable(layers);
  for (const { layer, policy } of layers) {
    const entry = findMatch(policy.send?.block ?? [], address);
    if (entry) return { verdict: 'refuse', rule: { layer, rule: 'send.block', entry } };
  }
  let worst: SendVerdict = { verdict: 'allow', rule: { layer: 'default', rule: 'send.mode=open' } };
  for (const { layer, policy } of layers) {
    const mode = policy.send?.mode;
    if (!mode || mode === 'open') continue;
    const allowed = findMatch(policy.send?.allow ?? [], address) !== undefined;
    let verdict: SendVerdict['verdict'] = 'refuse';
    if (mode !== 'off' && (allowed || (mode === 'known' && facts.isKnown))) verdict = 'allow';
    else if (mode === 'confirm') verdict = 'confirm';
    if (worst.rule.layer === 'default' || verdictRank[verdict] > verdictRank[worst.verdict])
      worst = { verdict, rule: { layer, rule: `send.mode=${mode}` } };
  }
  return worst;
}

type ReceiveVerdict = { verdict: 'show' } | { verdict: 'hold'; rule: DecidingRule };

/**
 * Whether mail from a sender is shown. An allow entry counts only when sender authentication passed for the
 * From domain (a forged news@good.test is not good.test); a block entry holds mail whatever it says.
 */
export function judgeSender(
  layers: readonly LoadedLayer[],
  address: NormalisedAddress | undefined,
  facts: { authenticated: boolean },
): ReceiveVerdict {
  assertUsable(layers);
  if (address)
    for (const { layer, policy } of layers) {
      const entry = findMatch(policy.receive?.block ?? [], address);
      if (entry) return { verdict: 'hold', rule: { layer, rule: 'receive.block', entry } };
    }
  for (const { layer, policy } of layers) {
    if (policy.receive?.mode !== 'allowlist') continue;
    const allowed =
      address !== undefined && facts.authenticated && findMatch(policy.receive.allow ?? [], address) !== undefined;
    if (!allowed) return { verdict: 'hold', rule: { layer, rule: 'receive.mode=allowlist' } };
  }
  return { verdict: 'show' };
}

/** Whether any layer restricts what the agent reads: when none does, readers skip the work of judging. */
export function restrictsReceiving(layers: readonly LoadedLayer[]): boolean {
  assertUsable(layers);
  return layers.some(({ policy }) => policy.receive?.mode === 'allowlist' || (policy.receive?.block?.length ?? 0) > 0);
}
