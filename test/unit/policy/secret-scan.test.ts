import { beforeEach, describe, expect, it } from 'vitest';
import { scanBytesPerPart, scanForSecrets } from '../../../src/policy/secret-scan.js';
import { forgetAllSecrets, rememberSecret } from '../../../src/redact.js';

describe('outbound secret scan', () => {
  beforeEach(() => forgetAllSecrets());

  it('lets ordinary words about passwords and tokens through', async () => {
    const findings = await scanForSecrets([
      { where: 'subject', text: 'Password reset and token rotation' },
      {
        where: 'body',
        text: 'Your password is the one we agreed on; the bearer of this token may enter. api_key: ask Ana.',
      },
    ]);
    expect(findings).toEqual([]);
  });

  it("finds the inbox's own apiKey and a piece of its token wherever it is, naming the place and kind only", async () => {
    const apiKey = 'amkx_9f8e7d6c5b4a39281706';
    const token = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJib3RAeC50ZXN0IiwiZXhwIjoxfQ.c2lnbmF0dXJlLW9mLXRoZS1jYXBhYmlsaXR5';
    rememberSecret(apiKey);
    rememberSecret(token);
    const findings = await scanForSecrets([
      { where: 'display name of To', text: `Key ${apiKey}` },
      { where: 'attachment notes.txt', text: `sig: ${token.split('.')[2]}` },
    ]);
    expect(findings).toEqual([
      { where: 'display name of To', kind: "this inbox's own apiKey or token" },
      { where: 'attachment notes.txt', kind: "this inbox's own apiKey or token" },
    ]);
    expect(JSON.stringify(findings)).not.toContain(apiKey.slice(5, 15));
  });

  it('finds private-key blocks, even cut short, and common credential formats from the rule set', async () => {
    const findings = await scanForSecrets([
      { where: 'body', text: 'here:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ' },
      { where: 'header X-Note', text: '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' },
      { where: 'subject', text: 'xoxb-123456789012-1234567890123-abcdefghijabcdefghijabcd' },
      { where: 'html body', text: '<p>amk_live_0123456789abcdefghij</p>' },
    ]);
    expect(findings).toEqual([
      { where: 'body', kind: 'a private key' },
      { where: 'header X-Note', kind: 'a GitHub token' },
      { where: 'subject', kind: 'a Slack token' },
      { where: 'html body', kind: 'an Agent Mailbox apiKey' },
    ]);
  });
});

describe('the scan over time', () => {
  it('leaves no profiling marks behind, so a long-lived server neither slows down nor grows with each scan', async () => {
    const { performance } = await import('node:perf_hooks');
    const before = performance.getEntriesByType('mark').length;
    for (let n = 0; n < 20; n += 1) await scanForSecrets([{ where: 'the body', text: `hello ${n}` }]);
    expect(performance.getEntriesByType('mark').length).toBe(before);
  });
});

describe('the scan of a long part', () => {
  beforeEach(() => forgetAllSecrets());
  const filler = (length: number): string => 'lorem ipsum '.repeat(Math.ceil(length / 12)).slice(0, length);

  it('finds a key past the first window, and one lying across the seam of two windows', async () => {
    const late = `${filler(scanBytesPerPart + 100_000)} amk_0123456789abcdefghij end`;
    expect(await scanForSecrets([{ where: 'the attachment big.txt', text: late }])).toEqual([
      { where: 'the attachment big.txt', kind: 'an Agent Mailbox apiKey' },
    ]);
    const seam = `${filler(scanBytesPerPart - 10)} amk_0123456789abcdefghij ${filler(1000)}`;
    expect(await scanForSecrets([{ where: 'the body', text: seam }])).toEqual([
      { where: 'the body', kind: 'an Agent Mailbox apiKey' },
    ]);
  });

  it('names each kind once per place, however often and in however many windows it occurs', async () => {
    rememberSecret('amk_the_inbox_own_key_0123456789');
    const key = 'amk_the_inbox_own_key_0123456789';
    const text = `${key} ${filler(scanBytesPerPart)} ${key} ${key}`;
    expect(
      await scanForSecrets([
        { where: 'the body', text },
        { where: 'the subject', text: key },
      ]),
    ).toEqual([
      { where: 'the body', kind: "this inbox's own apiKey or token" },
      { where: 'the body', kind: 'an Agent Mailbox apiKey' },
      { where: 'the subject', kind: "this inbox's own apiKey or token" },
      { where: 'the subject', kind: 'an Agent Mailbox apiKey' },
    ]);
  });
});

describe('the shapes the scan knows itself', () => {
  it('finds every private-key block header, a JSON Web Token, and the apiKey, refresh-token and client-secret shapes the redactor knows', async () => {
    const kinds = async (text: string) => (await scanForSecrets([{ where: 'the body', text }])).map((f) => f.kind);
    for (const header of [
      '-----BEGIN PRIVATE KEY-----',
      '-----BEGIN EC PRIVATE KEY-----',
      '-----BEGIN ENCRYPTED PRIVATE KEY-----',
      '-----BEGIN PGP PRIVATE KEY BLOCK-----',
    ]) {
      expect(await kinds(`x\n${header}\nMIIB`), header).toContain('a private key');
    }
    expect(await kinds('-----BEGIN PUBLIC KEY-----\nMIIB')).toEqual([]);
    expect(
      await kinds('token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'),
    ).toContain('a JSON Web Token');
    expect(await kinds('amk_0123456789abcdef')).toEqual(['an Agent Mailbox apiKey']);
    expect(await kinds('amk_012345')).toEqual(['an Agent Mailbox apiKey']);
    expect(await kinds('amk_01234')).toEqual([]);
    expect(await kinds('xamk_0123456789abcdef')).toEqual([]);
    expect(await kinds('refresh=amr_Zx9y8w7v6u')).toEqual(['an Agent Mailbox refresh token']);
    expect(await kinds('"amcs_Q1w2e3r4t5"')).toEqual(['an Agent Mailbox client secret']);
    expect(await kinds('amr_12345 amcs_1234')).toEqual([]);
  });
});

describe('a JSON Web Token by structure', () => {
  const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const kinds = async (text: string) => (await scanForSecrets([{ where: 'the body', text }])).map((f) => f.kind);

  it("is found whatever its header's key order or spacing, unsigned, or encrypted (five segments)", async () => {
    const payload = segment({ sub: 'ada@agent-mailbox.test', scope: 'mail' });
    const spaced = Buffer.from('{\r\n "typ":"JWT",\r\n "alg":"EdDSA"}').toString('base64url');
    expect(spaced.startsWith('eyJ')).toBe(false);
    expect(await kinds(`t=${spaced}.${payload}.c2lnbmF0dXJl`)).toEqual(['a JSON Web Token']);
    expect(await kinds(`${segment({ kid: 'k1', alg: 'ES256' })}.${payload}.sig`)).toEqual(['a JSON Web Token']);
    expect(await kinds(`${segment({ alg: 'none' })}.${payload}.`)).toEqual(['a JSON Web Token']);
    expect(await kinds(`${segment({ alg: 'RSA-OAEP', enc: 'A256GCM' })}.a2V5a2V5.aXZpdg.Y2lwaGVy.dGFn`)).toEqual([
      'a JSON Web Token',
    ]);
  });

  it('is found behind any dotted prefix, as any segment of a dotted run, and in a JWE behind one', async () => {
    const jwt = `${segment({ alg: 'HS256' })}.${segment({ sub: 'ada' })}.c2lnbmF0dXJl`;
    for (const text of [
      `wrap.${jwt}`,
      `data.info.${jwt}`,
      `v2.data.info.more.${jwt}.tail`,
      `aaaa.bbbb.cccc.dddd.eeee.${segment({ alg: 'RSA-OAEP', enc: 'A256GCM' })}.a2V5a2V5.aXZpdg.Y2lwaGVy.dGFn`,
    ])
      expect(await kinds(text), text.slice(0, 30)).toEqual(['a JSON Web Token']);
  });

  it('reads a header with white space before its object, and no header that is null, a list, a string or a number', async () => {
    const payload = segment({ sub: 'ada' });
    const raw = (json: string) => Buffer.from(json).toString('base64url');
    expect(await kinds(`${raw(' \n\t{"alg":"HS256"}')}.${payload}.c2ln`)).toEqual(['a JSON Web Token']);
    for (const json of ['null', '["alg"]', '"alg"', '1234', '{"alg":1}', '{"alg":null}'])
      expect(await kinds(`${raw(json)}.${payload}.c2ln`), json).toEqual([]);
  });

  it('is not a dotted name, a version or base64 that is no token header', async () => {
    expect(await kinds('see www.example.test.and.more or 1.2.3 or report.final.v2.pdf')).toEqual([]);
    expect(await kinds(`${segment({ name: 'x' })}.${segment({ a: 1 })}.c2ln`)).toEqual([]);
    expect(await kinds(`${segment(['alg'])}.${segment({ a: 1 })}.c2ln`)).toEqual([]);
  });
});

describe('the kinds the rule set finds', () => {
  it('names each credential by its kind in words, and one it has no words for by its rule', async () => {
    const a20 = 'aB3dE5gH7jK9mN1pQ2sT';
    // A service-account token is `ops_` and its account as base64 JSON (the rule wants its closing `fQ==`).
    const onePasswordAccount = Buffer.from(
      '{ "email":"x@1passwordserviceaccounts.lcl","secretKey":"A3-C4ZJMN-PQTZTL-HGL84-G64M7-KVZRN-4ZVP6","signInAddress":"my.1password.com"}',
    ).toString('base64');
    const samples: [string, string][] = [
      [`npm_${a20}${a20.slice(0, 16)}`, 'an npm token'],
      ['see https://deploy:hunter2secret@build.example.com/', 'a password inside a URL'],
      [`sk-${a20}T3BlbkFJ${a20}`, 'an OpenAI API key'],
      [`sk-ant-api03-${a20.repeat(5)}AA`, 'an Anthropic API key'],
      [`SG.${a20}xy.${a20}${a20}abc`, 'a SendGrid API key'],
      [`shpat_${'0123456789abcdef'.repeat(2)}`, 'a Shopify token'],
      [`glpat-${a20}`, 'a credential (gitlab)'],
      [`OP_SERVICE_ACCOUNT_TOKEN=ops_${onePasswordAccount}`, 'a 1Password token'],
      ['AWS_SECRET_ACCESS_KEY = Zq8rT2vW9xY4bN6mK1pL3sD5fG7hJ0aQ2wE4rT6y', 'an AWS credential'],
      [
        '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8cZ4bWQ1ZQ5S2OeNfG0oGHbN\nq8rT2vW9xY4bN6mK1pL3sD5fG7hJ0aQ2wE4rT6yZq8rT2vW9xY4bN6mK1pL3sD5\n-----END RSA PRIVATE KEY-----',
        'a private key',
      ],
    ];
    for (const [text, kind] of samples)
      expect(
        (await scanForSecrets([{ where: 'the body', text }])).map((f) => f.kind),
        kind,
      ).toEqual([kind]);
  });
});
