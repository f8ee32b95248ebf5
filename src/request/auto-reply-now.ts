import type { Account } from '../auth/account-registry.js';
import { openServiceGate } from '../gate/service-gate.js';
import { guardedInbox } from '../policy/records/inbox-state-dir.js';
import { readAutoReplyState, writeAutoReplyState } from '../policy/records/auto-reply-state.js';
import { withCheckStage, type RequestGateContext } from './check-outgoing.js';

/** After a rules change: one read through the gate, so the guard switches a refused auto-reply off now (else owed). */

export type AutoReplyNow = { kind: 'switched off' } | { kind: 'unchanged' } | { kind: 'owed'; why: string };

export async function applyAutoReplyRulesNow(account: Account, context: RequestGateContext): Promise<AutoReplyNow> {
  let stateDir: string | undefined;
  try {
    stateDir = guardedInbox(await account.inbox()).stateDir;
    const before = await readAutoReplyState(stateDir);
    const gate = openServiceGate(account, withCheckStage(context));
    const session = await gate.session();
    await gate.call({
      using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:vacationresponse'],
      methodCalls: [
        ['VacationResponse/get', { accountId: session.accountId, ids: null, properties: ['id', 'isEnabled'] }, 'v'],
      ],
    });
    const after = await readAutoReplyState(stateDir);
    if (after.pending) return { kind: 'owed', why: 'the service did not switch it off' };
    return after.switchedOffAt !== undefined && after.switchedOffAt !== before.switchedOffAt
      ? { kind: 'switched off' }
      : { kind: 'unchanged' };
  } catch (error) {
    if (stateDir !== undefined)
      await writeAutoReplyState(stateDir, { ...(await readAutoReplyState(stateDir)), pending: true }).catch(
        () => undefined,
      );
    return { kind: 'owed', why: error instanceof Error ? error.message : String(error) };
  }
}
