import type { Account } from '../auth/account-registry.js';
import { authservIdOf } from '../config.js';
import { resolveInboxAddress } from '../jmap/resolve-inbox-address.js';
import type { JmapSessionInfo } from '../jmap/jmap-types.js';
import { findMatch, normaliseAddress, type NormalisedAddress } from '../policy/address-matcher.js';
import { judgeSender, restrictsReceiving, type DecidingRule } from '../policy/judge-address.js';
import { guardedInbox } from '../policy/records/inbox-state-dir.js';
import { loadPolicyLayers, policyPaths, type LoadedLayer } from '../policy/policy-layers.js';
import {
  authenticateSender,
  cameInThrough,
  type SenderAuthentication,
  type SenderFacts,
} from '../trust/sender-authentication.js';

/** What judging a received message needs: the operator's layers, whose verdicts count, and who this inbox is. */
export interface ReceiveRules {
  layers: readonly LoadedLayer[];
  authservId: string;
  inbox: NormalisedAddress | undefined;
}

/** Reads the account once for a call's rules (loadInboxLayers and receiveRulesOf both take it): its settings and which inbox it is. */
export async function readAccountView(account: Account) {
  const [config, identity] = await Promise.all([account.config(), account.inbox()]);
  return { config, identity };
}
type AccountView = Awaited<ReturnType<typeof readAccountView>>;

/**
 * The operator's layers for this inbox (machine, user, and the inbox's own in its state folder, where
 * the policy commands write it). Read once per call: a changed file applies from the next call on.
 */
export async function loadInboxLayers(account: Account, view?: AccountView): Promise<LoadedLayer[]> {
  const { config, identity } = view ?? (await readAccountView(account));
  return loadPolicyLayers(
    policyPaths({ userConfigDir: config.userConfigDir, inboxDir: guardedInbox(identity).stateDir }),
  );
}

/**
 * The receive rules of a call, or undefined when no layer restricts receiving (nothing is judged or
 * fetched). A broken layer file throws (policy_unreadable): nothing is read under rules nobody can read.
 */
export async function receiveRulesOf(
  layers: readonly LoadedLayer[],
  account: Account,
  session: () => Promise<JmapSessionInfo>,
  view?: AccountView,
): Promise<ReceiveRules | undefined> {
  if (!restrictsReceiving(layers)) return undefined;
  const [{ config, identity }, info] = await Promise.all([view ?? readAccountView(account), session()]);
  const inbox =
    identity.address !== undefined
      ? { address: identity.address }
      : resolveInboxAddress({
          storedInboxId: identity.inboxId,
          sessionAccountId: info.accountId,
          // Stryker disable next-line ConditionalExpression,StringLiteral: the default inbox domain is the service's, which resolveInboxAddress falls back to anyway
          ...(config.sources.inboxDomain !== 'default' ? { configuredDomain: config.inboxDomain } : {}),
        });
  return { layers, authservId: authservIdOf(config), inbox: normaliseAddress(inbox.address) };
}

/**
 * Judges one received message. The inbox's own writing (From is its address and the message never came
 * in from outside, or came in authenticated) is never held; anything else is held when a From address
 * or the Sender is blocked, else judged by its one From address and its authentication (several From
 * addresses pass no allow-list).
 */
export function judgeReceived(
  facts: SenderFacts,
  rules: ReceiveRules,
): { held: boolean; rule?: DecidingRule; authentication: SenderAuthentication } {
  const authentication = authenticateSender(facts, rules.authservId);
  const sender = authentication.sender;
  if (sender && rules.inbox && sender.address === rules.inbox.address) {
    if (!cameInThrough(facts, rules.authservId) || authentication.authenticated) return { held: false, authentication };
  }
  const blocked = blockingRule(rules.layers, facts);
  if (blocked) return { held: true, rule: blocked, authentication };
  const verdict = judgeSender(rules.layers, sender, { authenticated: authentication.authenticated });
  return verdict.verdict === 'hold'
    ? { held: true, rule: verdict.rule, authentication }
    : { held: false, authentication };
}

/**
 * The block entry any From address or the Sender matches. An address the matcher cannot read is held
 * under a block-list too: whether it names a blocked sender cannot be told, and the server may read it otherwise.
 */
function blockingRule(layers: readonly LoadedLayer[], facts: SenderFacts): DecidingRule | undefined {
  const blocks = layers.filter(({ policy }) => (policy.receive?.block?.length ?? 0) > 0);
  if (blocks.length === 0) return undefined;
  for (const named of [...facts.from, ...(facts.sender ?? [])]) {
    if (typeof named.email !== 'string') continue;
    const address = normaliseAddress(named.email);
    for (const { layer, policy } of blocks) {
      if (!address) return { layer, rule: 'receive.block', entry: '(an address that cannot be read)' };
      const entry = findMatch(policy.receive?.block ?? [], address);
      if (entry) return { layer, rule: 'receive.block', entry };
    }
  }
  return undefined;
}
