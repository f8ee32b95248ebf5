import dns from 'node:dns';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeBackend, signUpInbox, startTestSandbox } from '../helpers/sandbox.js';
import { composeMail, outsideDomain, sendRaw, zoneOf } from './mail-auth-kit.js';

const example = outsideDomain('example.org', { spf: 'v=spf1 mx a:relay.example.org include:_spf.example.org -all' });

/** A sandbox on the fake store (its raw deliveries are the test's to read) and one inbox. */
async function sandboxWith(options: Parameters<typeof startTestSandbox>[0] = {}) {
  const fake = createFakeBackend();
  const sandbox = await startTestSandbox({ createBackend: fake.factory, ...options });
  const inbox = await signUpInbox(sandbox, 'listener-user');
  /** The Authentication-Results fields of the last delivered message, unfolded, top first. */
  const lastResults = (): string[] => {
    const raw = fake.delivered.at(-1)?.raw.toString('latin1') ?? '';
    const header = raw.slice(0, raw.search(/\r?\n\r?\n/));
    return header
      .replace(/\r?\n[ \t]/g, ' ')
      .split(/\r?\n/)
      .filter((line) => /^authentication-results\s*:/i.test(line))
      .map((line) => line.replace(/^[^:]*:\s*/, ''));
  };
  return { sandbox, inbox, fake, lastResults };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the SMTP listener authenticates mail from outside', () => {
  it('without a DNS file answers every lookup "not found": dkim=none, spf=none, dmarc=none', async () => {
    const { sandbox, inbox, lastResults } = await sandboxWith();
    await sendRaw(
      sandbox.smtpPort,
      await composeMail({ from: 'news@example.org', to: inbox.address, subject: 'no dns' }),
      { from: 'news@example.org', to: inbox.address },
    );
    expect(lastResults()).toEqual([
      'agent-mailbox.test; dkim=none (message not signed); spf=none (agent-mailbox.test: example.org does not designate permitted sender hosts) smtp.mailfrom=news@example.org smtp.helo=client.example.org; dmarc=none header.from=example.org',
    ]);
  });

  it('answers every lookup from its own records, sending no DNS query to the network', async () => {
    const zone = zoneOf(example.records, {
      TXT: { '_spf.example.org': [['v=spf1 ip4:192.0.2.7 -all']] },
      MX: { 'example.org': ['10 mx.example.org'] },
      A: { 'mx.example.org': ['192.0.2.8'], 'relay.example.org': ['127.0.0.1'] },
    });
    const { sandbox, inbox, lastResults } = await sandboxWith({ dns: zone });
    const raw = await example.sign(
      await composeMail({ from: 'news@example.org', to: inbox.address, subject: 'local dns' }),
    );
    const spies = [
      vi.spyOn(dns, 'lookup'),
      vi.spyOn(dns, 'resolve'),
      vi.spyOn(dns, 'resolveTxt'),
      vi.spyOn(dns, 'resolveMx'),
      vi.spyOn(dns, 'reverse'),
      vi.spyOn(dns.promises, 'resolve'),
      vi.spyOn(dns.promises, 'resolveTxt'),
      vi.spyOn(dns.promises, 'lookup'),
      vi.spyOn(dns.promises, 'reverse'),
    ];
    await sendRaw(sandbox.smtpPort, raw, { from: 'news@example.org', to: inbox.address });
    // SPF walked mx, a and include to reach 127.0.0.1 through relay.example.org's A record.
    expect(lastResults()[0]).toMatch(
      /dkim=pass header\.i=@example\.org .*spf=pass .*designates 127\.0\.0\.1 as permitted sender.*dmarc=pass/,
    );
    for (const spy of spies) expect(spy.mock.calls, spy.getMockName()).toEqual([]);
  });

  it('judges a bounce (MAIL FROM:<>) by the HELO name, as postmaster@HELO (RFC 7208 §2.4)', async () => {
    const zone = zoneOf({ TXT: { 'mail.example.org': [['v=spf1 ip4:127.0.0.1 -all']] } });
    const { sandbox, inbox, lastResults } = await sandboxWith({ dns: zone });
    await sendRaw(
      sandbox.smtpPort,
      await composeMail({ from: 'MAILER-DAEMON@mail.example.org', to: inbox.address, subject: 'bounce' }),
      { from: '', to: inbox.address },
      'mail.example.org',
    );
    expect(lastResults()[0]).toContain(
      'spf=pass (agent-mailbox.test: domain of postmaster@mail.example.org designates 127.0.0.1 as permitted sender) smtp.mailfrom=postmaster@mail.example.org smtp.helo=mail.example.org',
    );
  });

  it('writes its configured authserv-id and keeps a field naming the domain, which is then another id', async () => {
    const { sandbox, inbox, lastResults } = await sandboxWith({ authservId: 'MX.Sandbox.TEST' });
    expect(sandbox.authservId).toBe('mx.sandbox.test');
    const raw = await composeMail({
      from: 'a@example.org',
      to: inbox.address,
      subject: 'own id',
      headers: [
        'Authentication-Results: mx.sandbox.test; dmarc=pass',
        'Authentication-Results: agent-mailbox.test; dmarc=pass',
      ],
    });
    await sendRaw(sandbox.smtpPort, raw, { from: 'a@example.org', to: inbox.address });
    expect(lastResults()).toEqual([
      expect.stringMatching(/^mx\.sandbox\.test; dkim=none/),
      'agent-mailbox.test; dmarc=pass',
    ]);
  });

  it('records dmarc=permerror for a From with two addresses instead of leaving DMARC out', async () => {
    const { sandbox, inbox, lastResults } = await sandboxWith({ dns: zoneOf(example.records) });
    await sendRaw(
      sandbox.smtpPort,
      await composeMail({ from: 'a@example.org, b@bank.test', to: inbox.address, subject: 'two authors' }),
      { from: 'a@example.org', to: inbox.address },
    );
    expect(lastResults()[0]).toMatch(/; dmarc=permerror \(the From field holds 2 addresses, not one\)$/);
  });

  it('escapes a parenthesis in MAIL FROM, so the SPF comment cannot swallow the results after it', async () => {
    const plain = outsideDomain('example.com');
    const { sandbox, inbox, lastResults } = await sandboxWith({ dns: zoneOf(plain.records) });
    await sendRaw(sandbox.smtpPort, await composeMail({ from: 'a@example.com', to: inbox.address, subject: 'paren' }), {
      from: '"x(y"@example.com',
      to: inbox.address,
    });
    const [ours = ''] = lastResults();
    expect(ours).toContain(
      'spf=pass (agent-mailbox.test: domain of "x\\(y"@example.com designates 127.0.0.1 as permitted sender) smtp.mailfrom="\\"x(y\\"@example.com"',
    );
    expect(ours).toMatch(/; dmarc=pass \(p=REJECT\) header\.from=example\.com header\.d=example\.com$/);
  });
});

describe('what one message may cost the check', () => {
  it('verifies only the topmost 5 DKIM signatures of a message that carries 40', async () => {
    const { sandbox, inbox, lastResults } = await sandboxWith({ dns: zoneOf(example.records) });
    let raw = await composeMail({ from: 'news@example.org', to: inbox.address, subject: 'many signatures' });
    for (let i = 0; i < 40; i += 1) raw = await example.sign(raw);
    await sendRaw(sandbox.smtpPort, raw, { from: 'news@example.org', to: inbox.address });
    expect(lastResults()[0]?.match(/dkim=pass/g)).toHaveLength(5);
  });

  it('stops SPF after 10 DNS-querying terms of an include chain with permerror (RFC 7208 §4.6.4)', async () => {
    const chain = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`l${i}.example.org`, [[`v=spf1 include:l${i + 1}.example.org -all`]]]),
    );
    const zone = zoneOf({ TXT: { 'example.org': [['v=spf1 include:l0.example.org -all']], ...chain } });
    const { sandbox, inbox, lastResults } = await sandboxWith({ dns: zone });
    await sendRaw(
      sandbox.smtpPort,
      await composeMail({ from: 'a@example.org', to: inbox.address, subject: 'deep spf' }),
      { from: 'a@example.org', to: inbox.address },
    );
    expect(lastResults()[0]).toMatch(
      /spf=permerror \(agent-mailbox\.test: permanent error in processing during lookup of a@example\.org: Too many DNS requests\)/,
    );
  });

  it('refuses a header section over 256 KiB with 552 and delivers the next message', async () => {
    const { sandbox, inbox, fake } = await sandboxWith();
    const before = fake.delivered.length;
    const padding = Array.from({ length: 300 }, (_, i) => `X-Padding-${i}: ${'p'.repeat(900)}`);
    await expect(
      sendRaw(
        sandbox.smtpPort,
        await composeMail({ from: 'a@example.org', to: inbox.address, subject: 'huge header', headers: padding }),
        { from: 'a@example.org', to: inbox.address },
      ),
    ).rejects.toMatchObject({
      responseCode: 552,
      response: expect.stringMatching(/header section exceeds the sandbox's limit of 262144 bytes/),
    });
    expect(fake.delivered.length).toBe(before);
    // The same listener takes the next message at once.
    await sendRaw(sandbox.smtpPort, await composeMail({ from: 'a@example.org', to: inbox.address, subject: 'after' }), {
      from: 'a@example.org',
      to: inbox.address,
    });
    expect(fake.delivered.length).toBe(before + 1);
  });
});
