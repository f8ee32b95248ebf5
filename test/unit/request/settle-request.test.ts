import { describe, expect, it } from 'vitest';
import type { Account } from '../../../src/auth/account-registry.js';
import type { AccountState } from '../../../src/credentials/stored-credentials.js';
import type { ServiceGate } from '../../../src/gate/service-gate.js';
import type { RequestPlan } from '../../../src/request/plan-request.js';
import type { SentRequest } from '../../../src/request/send-request.js';
import { settleRequest } from '../../../src/request/settle-request.js';

/** The cursor of list_new is saved when it moved, and nothing is locked or written when it did not. */

function accountWith(state: AccountState): { account: Account; updates: AccountState[] } {
  const updates: AccountState[] = [];
  let current = state;
  const account = {
    readState: async () => current,
    updateState: async (mutate: (s: AccountState) => AccountState) => {
      current = mutate(current);
      updates.push(current);
      return current;
    },
  } as unknown as Account;
  return { account, updates };
}

const plan = {
  preset: { cursor: { stateField: 'listNewState', saveFrom: 'NEW_STATE' } },
  presetName: 'list_new',
  vars: {},
  dryRun: false,
} as unknown as RequestPlan;
// The steps' captures travel with the send stage's result: the cursor to save is one of them.
const sent = (saved: string): SentRequest =>
  ({ outcome: { done: [], failures: [], vars: { NEW_STATE: saved } }, own: [] }) as unknown as SentRequest;
const gate = {} as ServiceGate;

describe('settleRequest, the saved cursor', () => {
  it('writes nothing when the cursor is the one already saved', async () => {
    const { account, updates } = accountWith({ listNewState: 's1' } as AccountState);
    await settleRequest(account, plan, sent('s1'), gate);
    expect(updates).toEqual([]);
  });

  it('saves a cursor that moved', async () => {
    const { account, updates } = accountWith({ listNewState: 's1' } as AccountState);
    await settleRequest(account, plan, sent('s2'), gate);
    expect(updates.map((s) => s.listNewState)).toEqual(['s2']);
    const fresh = accountWith({} as AccountState);
    await settleRequest(fresh.account, plan, sent('s1'), gate);
    expect(fresh.updates.map((s) => s.listNewState)).toEqual(['s1']);
  });
});
