import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { refusal, startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';

/**
 * An identity's Bcc copies every mail sent with it and its Reply-To takes the answers: a prompt
 * injection that sets either to its own address has a standing way out. Setting them is judged as
 * a send to those addresses.
 */

let world: GuardWorld;
const eve = 'eve@evil.test';
const core = 'urn:ietf:params:jmap:core';
const submission = 'urn:ietf:params:jmap:submission';

beforeAll(async () => {
  world = await startGuardWorld('embedded', 'ident');
});
afterEach(async () => world.clearPolicies());

const setIdentity = (patch: Record<string, unknown>) => ({
  using: [core, submission],
  methodCalls: [['Identity/set', { accountId: '$ACCOUNT_ID', update: { $IDENTITY_ID: patch } }, 's']],
});
const createIdentity = (patch: Record<string, unknown>) => ({
  using: [core, submission],
  methodCalls: [
    [
      'Identity/set',
      { accountId: '$ACCOUNT_ID', create: { n: { email: world.address.alice, name: 'Second', ...patch } } },
      's',
    ],
  ],
});

async function identityAddresses(): Promise<string[]> {
  const state = await world.run(world.alice, {
    ops: { using: [core, submission], methodCalls: [['Identity/get', { accountId: '$ACCOUNT_ID', ids: null }, 'g']] },
  });
  const list = (state.response?.methodResponses[0]?.[1].list ?? []) as Array<{
    bcc: Array<{ email: string }> | null;
    replyTo: Array<{ email: string }> | null;
  }>;
  return list.flatMap((identity) => [...(identity.bcc ?? []), ...(identity.replyTo ?? [])].map((entry) => entry.email));
}

describe("the send guard on an identity's Bcc and Reply-To", () => {
  it('refuses a Bcc to an address the allow-list does not hold, and the identity is unchanged', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    const error = await refusal(world.run(world.alice, { ops: setIdentity({ bcc: [{ name: null, email: eve }] }) }));
    expect(error.details).toMatchObject({ rule: { layer: 'user', rule: 'send.mode=allowlist' } });
    expect(await identityAddresses()).not.toContain(eve);
  });

  it('refuses a Reply-To and a new identity with a Bcc the same way', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    await refusal(world.run(world.alice, { ops: setIdentity({ replyTo: [{ name: 'Eve', email: eve }] }) }));
    await refusal(world.run(world.alice, { ops: createIdentity({ bcc: [{ name: null, email: eve }] }) }));
    expect(await identityAddresses()).not.toContain(eve);
  });

  it('refuses in confirm mode, where nobody can be asked, and under a block-list in open mode', async () => {
    await world.writeUserPolicy({ send: { mode: 'confirm' } });
    await refusal(world.run(world.alice, { ops: setIdentity({ bcc: [{ name: null, email: eve }] }) }));
    await world.writeUserPolicy({ send: { mode: 'open', block: ['evil.test'] } });
    await refusal(world.run(world.alice, { ops: setIdentity({ bcc: [{ name: null, email: 'EVE@Evil.Test' }] }) }));
    expect(await identityAddresses()).not.toContain(eve);
  });

  it('refuses a Bcc it cannot read rather than guess', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    await refusal(world.run(world.alice, { ops: setIdentity({ bcc: 'eve@evil.test' }) }));
  });

  it('lets an allowed Bcc and a change of name through', async () => {
    await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
    expect(
      (await world.run(world.alice, { ops: setIdentity({ bcc: [{ name: null, email: world.address.bob }] }) })).ok,
    ).toBe(true);
    expect((await world.run(world.alice, { ops: setIdentity({ name: 'Alice', bcc: null }) })).ok).toBe(true);
    expect(await identityAddresses()).toEqual([]);
  });
});
