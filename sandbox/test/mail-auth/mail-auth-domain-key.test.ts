import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateDomainKey } from '../../src/mail-auth/domain-key.js';
import { createMailAuthority } from '../../src/mail-auth/mail-authority.js';
import { startSandbox } from '../../src/start-sandbox.js';
import { signUp } from '../../../test/cyrus/cyrus-test-kit.js';
import { authenticationResults, headersOf, sendFromInbox, sendRaw, sessionApiUrl } from './mail-auth-kit.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-mailbox-dkim-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("the sandbox domain's DKIM key", () => {
  it('is made once, kept owner-only in the data directory, and read back unchanged', async () => {
    const keyDir = join(dir, 'unit');
    const first = await loadOrCreateDomainKey(keyDir);
    const again = await loadOrCreateDomainKey(keyDir);
    expect(again).toEqual(first);
    expect(first.record).toMatch(/^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/);
    expect(first.selector).toMatch(/^sandbox-[0-9a-f]{8}$/);
    expect((await stat(join(keyDir, 'dkim-key.json'))).mode & 0o777).toBe(0o600);
    // Without a directory every start makes a new key, with a new selector.
    expect((await loadOrCreateDomainKey()).selector).not.toBe((await loadOrCreateDomainKey()).selector);
  });

  it("signs at the sandbox's clock, the one time it also verifies at, so the signature's t= is the signed one", async () => {
    const at = Date.UTC(2030, 0, 2, 3, 4, 5);
    const authority = await createMailAuthority({
      domain: 'agent-mailbox.test',
      authservId: 'agent-mailbox.test',
      now: () => at,
    });
    const raw = Buffer.from('From: a@agent-mailbox.test\r\nTo: b@agent-mailbox.test\r\nSubject: clock\r\n\r\nbody\r\n');
    const { signed, results } = await authority.authenticate(raw, 'a@agent-mailbox.test');
    expect(signed.toString('latin1')).toMatch(new RegExp(`^DKIM-Signature: [^]*t=${at / 1000};`));
    expect(results.map((result) => result.result)).toEqual(['pass', 'pass', 'pass']);
  });

  it('survives a restart with --data-dir: mail signed before it still verifies after it', async () => {
    const dataDir = join(dir, 'sandbox');
    const first = await startSandbox({ dataDir, difficulty: 2, rateLimit: false });
    let raw: Buffer;
    try {
      const alice = await signUp(first.authUrl, 'alice-keeps', first.salt);
      await sendFromInbox(
        await sessionApiUrl(first.apiUrl, alice),
        alice,
        'someone@example.org',
        'signed before the restart',
      );
      raw = Buffer.from(
        (await first.outbox()).find((entry) => entry.subject === 'signed before the restart')?.rawBase64 ?? '',
        'base64',
      );
    } finally {
      await first.close();
    }
    const second = await startSandbox({ dataDir, difficulty: 2, rateLimit: false });
    try {
      const bob = await signUp(second.authUrl, 'bob-after-restart', second.salt);
      await sendRaw(second.smtpPort, raw, { from: 'alice-keeps@agent-mailbox.test', to: bob.address });
      const [ours = ''] = authenticationResults(await headersOf(second.apiUrl, bob, 'signed before the restart'));
      expect(ours).toMatch(
        /dkim=pass header\.i=@agent-mailbox\.test header\.s=sandbox-[0-9a-f]{8} header\.a=ed25519-sha256/,
      );
    } finally {
      await second.close();
    }
  });
});
