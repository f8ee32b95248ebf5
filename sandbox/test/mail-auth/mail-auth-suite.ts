import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxBackendKind } from '../../src/start-sandbox.js';
import { signUp, type TestInbox } from '../../../test/cyrus/cyrus-test-kit.js';
import {
  authenticationResults,
  composeMail,
  headersOf,
  outsideDomain,
  sendFromInbox,
  sendRaw,
  sessionApiUrl,
  zoneOf,
} from './mail-auth-kit.js';

/**
 * Sender authentication as a recipient inbox sees it, run once per backend: the listener is
 * shared, but each backend stores the stamped message its own way (files, or Cyrus over LMTP),
 * and each has its own path for mail between inboxes (JMAP methods, or Cyrus's SMTP relay).
 */
export function describeSenderAuthentication(backend: SandboxBackendKind, skipReason?: string): void {
  describe.skipIf(skipReason)(`sender authentication on the ${backend} backend`, () => {
    const example = outsideDomain('example.org');
    const bank = outsideDomain('bank.test', { spf: 'v=spf1 ip4:192.0.2.200 -all' });
    let sandbox: RunningSandbox;
    let alice: TestInbox;
    let bob: TestInbox;
    let apiUrl = '';

    beforeAll(async () => {
      sandbox = await startSandbox({
        backend,
        difficulty: 2,
        rateLimit: false,
        dns: zoneOf(example.records, bank.records),
      });
      alice = await signUp(sandbox.authUrl, `alice-auth-${backend}`.slice(0, 21), sandbox.salt);
      bob = await signUp(sandbox.authUrl, `bob-auth-${backend}`.slice(0, 21), sandbox.salt);
      apiUrl = await sessionApiUrl(sandbox.apiUrl, alice);
    });
    afterAll(() => sandbox?.close());

    const sendAsAlice = (to: string, subject: string, extra: Record<string, unknown> = {}): Promise<void> =>
      sendFromInbox(apiUrl, alice, to, subject, extra);

    it('records dkim=pass, spf=pass and dmarc=pass on top of a signed message from a domain that authorises 127.0.0.1', async () => {
      const raw = await example.sign(
        await composeMail({ from: 'News <news@example.org>', to: bob.address, subject: 'auth pass' }),
      );
      await sendRaw(sandbox.smtpPort, raw, { from: 'news@example.org', to: bob.address });
      const headers = await headersOf(sandbox.apiUrl, bob, 'auth pass');
      const results = authenticationResults(headers);
      expect(results).toHaveLength(1);
      const ours = results[0] ?? '';
      expect(ours).toMatch(
        /^agent-mailbox\.test; dkim=pass header\.i=@example\.org header\.s=mail2024 header\.a=rsa-sha256 header\.b="?[\w+/]{8}"?; /,
      );
      expect(ours).toContain(
        '; spf=pass (agent-mailbox.test: domain of news@example.org designates 127.0.0.1 as permitted sender) smtp.mailfrom=news@example.org smtp.helo=client.example.org; ',
      );
      expect(ours).toMatch(/; dmarc=pass \(p=REJECT\) header\.from=example\.org header\.d=example\.org$/);
      // Above every field the sender wrote (RFC 8601 §5: prepended, like a trace field).
      const names = headers.map((header) => header.name.toLowerCase());
      expect(names.indexOf('authentication-results')).toBeLessThan(names.indexOf('dkim-signature'));
    });

    it('delivers mail whose From domain publishes p=reject but fails DMARC, with dmarc=fail on record', async () => {
      // Mallory's own domain signs and passes SPF; neither is aligned with the bank in From.
      const raw = await example.sign(
        await composeMail({ from: 'CEO <ceo@bank.test>', to: bob.address, subject: 'urgent wire transfer' }),
      );
      const answer = await sendRaw(sandbox.smtpPort, raw, { from: 'mallory@example.org', to: bob.address });
      expect(answer.response).toMatch(/^250 /);
      const [ours = ''] = authenticationResults(await headersOf(sandbox.apiUrl, bob, 'urgent wire transfer'));
      expect(ours).toContain('dkim=pass header.i=@example.org');
      expect(ours).toContain(
        'spf=pass (agent-mailbox.test: domain of mallory@example.org designates 127.0.0.1 as permitted sender) smtp.mailfrom=mallory@example.org',
      );
      expect(ours).toMatch(/; dmarc=fail \(p=REJECT\) header\.from=bank\.test header\.d=bank\.test$/);
    });

    it("removes every Authentication-Results a sender wrote with the service's authserv-id and keeps other hops' fields", async () => {
      const raw = await example.sign(
        await composeMail({
          from: 'news@example.org',
          to: bob.address,
          subject: 'forged verdict',
          headers: [
            'Authentication-Results: agent-mailbox.test; dkim=pass; spf=pass; dmarc=pass header.from=bank.test',
            'Authentication-Results: (looks official) "Agent-Mailbox.TEST" 1; dmarc=pass',
            'authentication-results :  agent-mailbox.test.;',
            '\tdmarc=pass',
            'Authentication-Results: mx.relay.example; spf=softfail smtp.mailfrom=x@example.org',
            'ARC-Authentication-Results: i=1; agent-mailbox.test; dmarc=pass',
          ],
        }),
      );
      await sendRaw(sandbox.smtpPort, raw, { from: 'news@example.org', to: bob.address });
      const headers = await headersOf(sandbox.apiUrl, bob, 'forged verdict');
      const results = authenticationResults(headers);
      expect(results).toHaveLength(2);
      expect(results[0]).toMatch(
        /^agent-mailbox\.test; dkim=pass header\.i=@example\.org .*; spf=pass .*; dmarc=pass \(p=REJECT\) header\.from=example\.org header\.d=example\.org$/,
      );
      expect(results[1]).toBe('mx.relay.example; spf=softfail smtp.mailfrom=x@example.org');
      // Part of an ARC set, sealed by whoever added it: kept, and no reader should trust it as ours.
      expect(
        headers
          .filter((header) => header.name.toLowerCase() === 'arc-authentication-results')
          .map((header) => header.value),
      ).toEqual(['i=1; agent-mailbox.test; dmarc=pass']);
    });

    it("refuses (550 5.6.0) a header section whose first line is folded, so it can never continue the service's field", async () => {
      // Written under the service's field, this line would add a dmarc=pass for the bank to the service's own verdict.
      for (const [index, fold] of [
        ' ; dmarc=pass header.from=bank.test',
        '\t;dmarc=pass (p=REJECT) header.from=bank.test header.d=bank.test',
        ' ',
      ].entries()) {
        const subject = `folded first line ${index}`;
        const signed = await example.sign(await composeMail({ from: 'CEO <ceo@bank.test>', to: bob.address, subject }));
        const raw = Buffer.concat([Buffer.from(`${fold}\r\n`), signed]);
        await expect(
          sendRaw(sandbox.smtpPort, raw, { from: 'mallory@example.org', to: bob.address }),
        ).rejects.toMatchObject({
          responseCode: 550,
          response: expect.stringMatching(/5\.6\.0 the header section begins with a folded line/),
        });
        await expect(headersOf(sandbox.apiUrl, bob, subject)).rejects.toThrow(/no message/);
      }
    });

    it('refuses (550 5.6.0) a header line that is neither a field nor a fold, and takes "Name : value" (RFC 5322 §4.5)', async () => {
      for (const [index, line] of [
        'From mallory@example.org Sat Nov 28 04:00:00 2026',
        'no colon here',
        ': no name',
        'Bad Name: spaces in the name',
        'N\u00e4me: eight-bit name',
      ].entries()) {
        const subject = `broken line ${index}`;
        const raw = await composeMail({
          from: 'CEO <ceo@bank.test>',
          to: bob.address,
          subject,
          headers: ['X-First: fine', line],
        });
        await expect(
          sendRaw(sandbox.smtpPort, raw, { from: 'mallory@example.org', to: bob.address }),
        ).rejects.toMatchObject({
          responseCode: 550,
          response: expect.stringMatching(/5\.6\.0 header field 2 is not a field name followed by a colon/),
        });
        await expect(headersOf(sandbox.apiUrl, bob, subject)).rejects.toThrow(/no message/);
      }
      await sendRaw(
        sandbox.smtpPort,
        await composeMail({
          from: 'news@example.org',
          to: bob.address,
          subject: 'obsolete colon',
          headers: ['X-Old-Style : value', 'X-Folded: a', '\tb'],
        }),
        { from: 'news@example.org', to: bob.address },
      );
      const headers = await headersOf(sandbox.apiUrl, bob, 'obsolete colon');
      expect(authenticationResults(headers)).toHaveLength(1);
      expect(headers.find((header) => header.name.toLowerCase() === 'x-folded')?.value).toMatch(/^a\s*b$/);
    });

    it("authenticates mail between the service's inboxes with the domain's own key, and drops the verdict an inbox wrote itself", async () => {
      await sendAsAlice(bob.address, 'inbox to inbox', {
        'header:Authentication-Results:asText': 'agent-mailbox.test; dmarc=pass (trust me)',
      });
      const results = authenticationResults(await headersOf(sandbox.apiUrl, bob, 'inbox to inbox'));
      expect(results).toHaveLength(1);
      expect(results[0]).toMatch(
        /^agent-mailbox\.test; dkim=pass header\.i=@agent-mailbox\.test header\.s=sandbox-[0-9a-f]{8} header\.a=ed25519-sha256 /,
      );
      expect(results[0]).toContain(
        `spf=pass (agent-mailbox.test: domain of ${alice.address} designates 192.0.2.1 as permitted sender) smtp.mailfrom=${alice.address}`,
      );
      expect(results[0]).toMatch(
        /; dmarc=pass \(p=REJECT\) header\.from=agent-mailbox\.test header\.d=agent-mailbox\.test$/,
      );
    });

    it('signs mail for the outside world with the domain key, so it still verifies when it comes back in', async () => {
      await sendAsAlice('someone@example.org', 'leaves signed');
      const entry = (await sandbox.outbox()).find((sent) => sent.subject === 'leaves signed');
      const raw = Buffer.from(entry?.rawBase64 ?? '', 'base64');
      expect(raw.toString('latin1')).toMatch(/^DKIM-Signature: .*d=agent-mailbox\.test/s);
      // Relayed back in from 127.0.0.1, which the domain's SPF does not list: only the signature can pass it.
      await sendRaw(sandbox.smtpPort, raw, { from: alice.address, to: bob.address });
      const [ours = ''] = authenticationResults(await headersOf(sandbox.apiUrl, bob, 'leaves signed'));
      expect(ours).toMatch(/dkim=pass header\.i=@agent-mailbox\.test/);
      expect(ours).toContain(
        `spf=fail (agent-mailbox.test: domain of ${alice.address} does not designate 127.0.0.1 as permitted sender)`,
      );
      expect(ours).toMatch(/dmarc=pass \(p=REJECT\) header\.from=agent-mailbox\.test header\.d=agent-mailbox\.test$/);
    });
  });
}
