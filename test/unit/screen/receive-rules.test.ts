import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { normaliseAddress } from '../../../src/policy/address-matcher.js';
import {
  judgeReceived,
  loadInboxLayers,
  readAccountView,
  receiveRulesOf,
  type ReceiveRules,
} from '../../../src/screen/receive-rules.js';
import { ReceiveScreen } from '../../../src/screen/receive-screen.js';
import type { SenderFacts } from '../../../src/trust/sender-authentication.js';
import { authservId, dmarc, fakeAccount, inboxAddress, receiveLayer, sessionOf } from './fake-mail-host.js';

const facts = (from: string, ...results: string[]): SenderFacts => ({
  from: [{ email: from }],
  authenticationResults: results,
});
const allowOnly = (layers = [receiveLayer({ mode: 'allowlist', allow: ['fine.test'] })]): ReceiveRules => ({
  layers,
  authservId,
  inbox: normaliseAddress(inboxAddress),
});

describe('judgeReceived', () => {
  it("shows the inbox's own drafts and sent copies, which never came in from outside", () => {
    expect(judgeReceived(facts(inboxAddress), allowOnly())).toMatchObject({
      held: false,
      authentication: { verdict: 'no-result' },
    });
    expect(judgeReceived(facts('ME@Agent-Mailbox.TEST', ' other.example; dmarc=pass'), allowOnly()).held).toBe(false);
  });

  it("judges mail that came in under the inbox's own address like any other, unless it authenticated", () => {
    expect(judgeReceived(facts(inboxAddress, dmarc('fail', inboxAddress)), allowOnly())).toMatchObject({
      held: true,
      rule: { layer: 'inbox', rule: 'receive.mode=allowlist' },
    });
    expect(judgeReceived(facts(inboxAddress, dmarc('pass', inboxAddress)), allowOnly()).held).toBe(false);
    // A block-list entry for the inbox's own domain holds what came in forged, never the inbox's own writing.
    const blockOwn = allowOnly([receiveLayer({ block: ['agent-mailbox.test'] })]);
    expect(judgeReceived(facts(inboxAddress, dmarc('none', inboxAddress)), blockOwn)).toMatchObject({
      held: true,
      rule: { rule: 'receive.block', entry: 'agent-mailbox.test' },
    });
    expect(judgeReceived(facts(inboxAddress), blockOwn).held).toBe(false);
  });

  it('shows an allowed sender only when its mail authenticated, and holds everyone else under an allow-list', () => {
    expect(judgeReceived(facts('ana@fine.test', dmarc('pass', 'ana@fine.test')), allowOnly())).toMatchObject({
      held: false,
      authentication: { authenticated: true },
    });
    expect(judgeReceived(facts('ana@fine.test', dmarc('fail', 'ana@fine.test')), allowOnly())).toMatchObject({
      held: true,
      rule: { rule: 'receive.mode=allowlist' },
      authentication: { dmarc: 'fail' },
    });
    expect(judgeReceived(facts('bob@other.test', dmarc('pass', 'bob@other.test')), allowOnly()).held).toBe(true);
    expect(judgeReceived({ from: [], authenticationResults: [dmarc('pass', 'x@fine.test')] }, allowOnly()).held).toBe(
      true,
    );
  });

  it('holds mail when any From address or the Sender is blocked, whatever their count', () => {
    const rules = allowOnly([receiveLayer({ block: ['evil.test'] }, 'machine'), receiveLayer({ mode: 'open' })]);
    const pass = dmarc('pass', 'ceo@bank.test');
    const held = { held: true, rule: { layer: 'machine', rule: 'receive.block', entry: 'evil.test' } };
    expect(
      judgeReceived(
        { from: [{ email: 'ceo@bank.test' }, { email: 'Mallory@Sub.EVIL.test' }], authenticationResults: [pass] },
        rules,
      ),
    ).toMatchObject(held);
    expect(
      judgeReceived(
        { from: [{ email: 'mallory@evil.test' }, { email: 'ceo@bank.test' }], authenticationResults: [pass] },
        rules,
      ),
    ).toMatchObject(held);
    expect(
      judgeReceived(
        {
          from: Array.from({ length: 40 }, (_, i) => ({ email: i === 39 ? 'x@evil.test' : `p${i}@bank.test` })),
          authenticationResults: [pass],
        },
        rules,
      ),
    ).toMatchObject(held);
    expect(
      judgeReceived(
        { from: [{ email: 'ceo@bank.test' }], sender: [{ email: 'bulk@evil.test' }], authenticationResults: [pass] },
        rules,
      ),
    ).toMatchObject(held);
    // Several authors pass no block entry they do not match, and are not verified.
    expect(
      judgeReceived(
        { from: [{ email: 'ceo@bank.test' }, { email: 'cfo@bank.test' }], sender: [], authenticationResults: [pass] },
        rules,
      ),
    ).toMatchObject({ held: false, authentication: { authenticated: false, reason: '2 From addresses' } });
    expect(
      judgeReceived(
        { from: [{ email: 'ceo@bank.test' }], sender: [{ email: 'ceo@bank.test' }], authenticationResults: [pass] },
        rules,
      ).held,
    ).toBe(false);
  });

  it('holds mail naming an address the matcher cannot read when a block-list applies, and lets several authors past no allow-list', () => {
    const blocking = allowOnly([receiveLayer({ block: ['evil.test'] })]);
    expect(
      judgeReceived(
        { from: [{ email: 'ceo@bank.test' }, { email: 'x@@evil.test' }], authenticationResults: [] },
        blocking,
      ),
    ).toMatchObject({ held: true, rule: { rule: 'receive.block', entry: '(an address that cannot be read)' } });
    expect(
      judgeReceived(
        { from: [{ email: 'ceo@bank.test' }], sender: [{ email: 'no-domain@' }], authenticationResults: [] },
        blocking,
      ).held,
    ).toBe(true);
    // A group name without an address names nobody.
    expect(
      judgeReceived(
        { from: [{ email: 'ceo@bank.test' }, { name: 'undisclosed', email: null }], authenticationResults: [] },
        blocking,
      ).held,
    ).toBe(false);
    // Without a block-list an unreadable address has nothing to be matched against.
    expect(
      judgeReceived(
        { from: [{ email: 'x@@evil.test' }], authenticationResults: [] },
        allowOnly([receiveLayer({ mode: 'open' })]),
      ).held,
    ).toBe(false);
    const both = [{ email: 'ana@fine.test' }, { email: 'bob@fine.test' }];
    expect(
      judgeReceived({ from: both, authenticationResults: [dmarc('pass', 'ana@fine.test')] }, allowOnly()),
    ).toMatchObject({ held: true, rule: { rule: 'receive.mode=allowlist' } });
  });

  it("trusts only the configured authserv-id's verdict", () => {
    const rules = { ...allowOnly(), authservId: 'mx.example' };
    expect(judgeReceived(facts('ana@fine.test', dmarc('pass', 'ana@fine.test')), rules)).toMatchObject({
      held: true,
      authentication: { verdict: 'no-result', authservId: 'mx.example' },
    });
    expect(judgeReceived(facts('ana@fine.test', ' mx.example; dmarc=pass header.from=fine.test'), rules).held).toBe(
      false,
    );
  });
});

describe('receiveRulesOf', () => {
  const blocking = [receiveLayer({ block: ['spam.test'] })];

  it('is undefined, reading nothing more, when no layer restricts receiving', async () => {
    const account = fakeAccount();
    let sessions = 0;
    const session = (): ReturnType<ReturnType<typeof sessionOf>> => {
      sessions += 1;
      return sessionOf()();
    };
    expect(await receiveRulesOf([receiveLayer({ mode: 'open' })], account, session)).toBeUndefined();
    expect(account.configReads()).toBe(0);
    expect(sessions).toBe(0);
  });

  it('names the inbox by its address and trusts the configured authserv-id, else the inbox domain', async () => {
    expect(await receiveRulesOf(blocking, fakeAccount(), sessionOf())).toEqual({
      layers: blocking,
      authservId: 'agent-mailbox.test',
      inbox: expect.objectContaining({ address: inboxAddress }),
    });
    const custom = await receiveRulesOf(
      blocking,
      fakeAccount({ identity: { inboxId: 'ana', address: 'Ana@Custom.test' } }),
      sessionOf(),
    );
    expect(custom?.inbox).toEqual({ address: 'ana@custom.test', local: 'ana', domain: 'custom.test' });
    const configured = await receiveRulesOf(
      blocking,
      fakeAccount({ flags: { authservId: 'MX.Example.' } }),
      sessionOf(),
    );
    expect(configured?.authservId).toBe('mx.example');
  });

  it("works out the inbox address from the session, then the configured domain, then the service's", async () => {
    const noAddress = { address: undefined, inboxId: 'Me' };
    const inboxOf = async (flags: Record<string, string>, accountId: string): Promise<string | undefined> =>
      (await receiveRulesOf(blocking, fakeAccount({ identity: noAddress, flags }), sessionOf({}, accountId)))?.inbox
        ?.address;
    expect(await inboxOf({}, 'me@custom.test')).toBe('me@custom.test');
    expect(await inboxOf({ inboxDomain: 'configured.test' }, 'acc-1')).toBe('me@configured.test');
    expect(await inboxOf({ inboxDomain: '' }, 'acc-1')).toBe('me@atomicmail.ai');
  });

  it("reads the account once per call: given the call's view of it, reads it no more", async () => {
    const account = fakeAccount();
    const view = await readAccountView(account);
    expect(account.configReads()).toBe(1);
    const rules = await receiveRulesOf(blocking, account, sessionOf(), view);
    expect(account.configReads()).toBe(1);
    expect(rules).toEqual(await receiveRulesOf(blocking, fakeAccount(), sessionOf()));
  });

  it('refuses to judge under a layer nobody can read', async () => {
    const broken = {
      ...receiveLayer({}),
      error: new MailboxError({ code: 'policy_unreadable', message: 'broken', hint: 'fix it' }),
    };
    await expect(receiveRulesOf([broken], fakeAccount(), sessionOf())).rejects.toMatchObject({
      code: 'policy_unreadable',
    });
  });
});

describe('loadInboxLayers', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'receive-rules-'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it("reads the user layer from the config directory and the inbox layer from the inbox's state folder", async () => {
    const configDir = join(home, '.config', 'agent-mailbox');
    const stateDir = join(home, 'inboxes', 'me');
    await mkdir(configDir, { recursive: true, mode: 0o700 });
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    await writeFile(
      join(configDir, 'user-policy.json'),
      JSON.stringify({ version: 1, receive: { block: ['spam.test'] } }),
      { mode: 0o600 },
    );
    await writeFile(join(stateDir, 'policy.json'), JSON.stringify({ version: 1, receive: { mode: 'allowlist' } }), {
      mode: 0o600,
    });
    const layers = await loadInboxLayers(fakeAccount({ dir: join(home, 'credentials'), home, identity: { stateDir } }));
    expect(layers.map((l) => [l.layer, l.path, l.present])).toEqual([
      ['machine', '/etc/agent-mailbox/policy.json', false],
      ['user', join(configDir, 'user-policy.json'), true],
      ['inbox', join(stateDir, 'policy.json'), true],
    ]);
    expect(layers.map((l) => l.policy.receive)).toEqual([undefined, { block: ['spam.test'] }, { mode: 'allowlist' }]);
    // The screen of one call reads the account once for its layers and its rules together.
    const account = fakeAccount({ dir: join(home, 'credentials'), home, identity: { stateDir } });
    const screen = new ReceiveScreen({ account, session: sessionOf(), lookup: () => Promise.reject(new Error('no')) });
    expect((await screen.rulesOfCall())?.layers.map((l) => l.present)).toEqual([false, true, true]);
    await screen.rulesOfCall();
    expect(account.configReads()).toBe(1);
  });
});
