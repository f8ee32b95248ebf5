import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDnsFile } from '../../src/mail-auth/dns-file.js';
import { createSandboxResolver } from '../../src/mail-auth/sandbox-resolver.js';
import { runSandboxCommand } from '../../src/sandbox-command.js';
import { signUp } from '../../../test/cyrus/cyrus-test-kit.js';
import { pollUntil } from '../helpers/sandbox.js';
import { runCli } from '../../../test/helpers/run-cli.js';
import { authenticationResults, composeMail, headersOf, outsideDomain, sendRaw } from './mail-auth-kit.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-mailbox-dns-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes `content` (JSON unless a string) to a file of this test run and returns its path. */
async function dnsFile(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('the DNS file (--dns-file)', () => {
  it('answers the records it lists, in the shapes node:dns gives, and tells an unknown name from a missing type', async () => {
    const longKey = `v=DKIM1; k=rsa; p=${'A'.repeat(600)}`;
    const resolver = createSandboxResolver(
      await loadDnsFile(
        await dnsFile('good.json', {
          TXT: {
            'Example.ORG.': ['v=spf1 ip4:127.0.0.1 -all', ['part one ', 'part two']],
            's._domainkey.example.org': [longKey],
          },
          MX: { 'example.org': ['10 MX.example.org.', '20 backup.example.org'] },
          A: { 'mx.example.org': ['127.0.0.1'] },
          AAAA: { 'mx.example.org': ['::1'] },
          PTR: { '1.0.0.127.in-addr.arpa': ['mx.example.org'] },
        }),
      ),
    );
    expect(await resolver.resolve('example.org', 'TXT')).toEqual([
      ['v=spf1 ip4:127.0.0.1 -all'],
      ['part one ', 'part two'],
    ]);
    // A long record comes back as the 255-character strings DNS carries; readers join them.
    const [key] = (await resolver.resolve('S._domainkey.example.org', 'TXT')) as string[][];
    expect(key?.map((part) => part.length)).toEqual([255, 255, longKey.length - 510]);
    expect(key?.join('')).toBe(longKey);
    expect(await resolver.resolve('example.org', 'MX')).toEqual([
      { priority: 10, exchange: 'mx.example.org' },
      { priority: 20, exchange: 'backup.example.org' },
    ]);
    expect(await resolver.resolve('mx.example.org', 'A')).toEqual(['127.0.0.1']);
    expect(await resolver.resolve('mx.example.org', 'AAAA')).toEqual(['::1']);
    expect(await resolver.resolve('1.0.0.127.in-addr.arpa', 'PTR')).toEqual(['mx.example.org']);
    await expect(resolver.resolve('nowhere.example.org', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolve('mx.example.org', 'TXT')).rejects.toMatchObject({ code: 'ENODATA' });
    await expect(resolver.resolve('example.org', 'CNAME')).rejects.toMatchObject({ code: 'ENODATA' });
  });

  it.each([
    ['bad JSON', '{"TXT": {"example.org": ["v=spf1 -all"]},}', /is not JSON: /],
    [
      'a record type the sandbox does not serve',
      { CNAME: { 'www.example.org': ['example.org'] } },
      /the top level: Unrecognized key: "CNAME"/,
    ],
    ['a number for a TXT record', { TXT: { 'example.org': [42] } }, /TXT › example\.org › 0: /],
    ['a name that is no DNS name', { A: { 'bad name!': ['127.0.0.1'] } }, /A › bad name!: is not a DNS name/],
    [
      'an MX record without a priority',
      { MX: { 'example.org': ['mx.example.org'] } },
      /MX › example\.org › 0: is not "PRIORITY HOST"/,
    ],
    ['an IPv6 address under A', { A: { 'example.org': ['::1'] } }, /A › example\.org › 0: is not an IPv4 address/],
    ['an empty list', { TXT: { 'example.org': [] } }, /TXT › example\.org: lists no record/],
    [
      '101 records for one name',
      { TXT: { 'example.org': Array.from({ length: 101 }, (_, i) => `r${i}`) } },
      /TXT › example\.org: lists more than 100 records/,
    ],
    [
      'a TXT record over 65,535 octets',
      { TXT: { 'example.org': [`v=spf1 ${'ip4:192.0.2.1 '.repeat(6000)}-all`] } },
      /TXT › example\.org holds \d+ octets of records, more than the 65535 one DNS answer can carry/,
    ],
    [
      'two spellings of one name that together exceed a DNS answer',
      { TXT: { 'example.org': ['x'.repeat(40_000)], 'EXAMPLE.org.': ['y'.repeat(40_000)] } },
      /TXT › example\.org holds \d+ octets/,
    ],
  ])('rejects %s and says where', async (_case, content, message) => {
    const path = await dnsFile('bad.json', content);
    await expect(loadDnsFile(path)).rejects.toMatchObject({
      message: expect.stringMatching(message),
      hint: expect.any(String),
    });
  });

  it('rejects a file over 4 MiB before reading it, and a path that does not exist', async () => {
    await expect(loadDnsFile(await dnsFile('huge.json', `{"TXT": {}}${' '.repeat(4 * 1024 * 1024)}`))).rejects.toThrow(
      /is 4194315 bytes, more than the 4194304 the sandbox reads/,
    );
    await expect(loadDnsFile(join(dir, 'missing.json'))).rejects.toThrow(/cannot be read: ENOENT/);
  });

  it('`agent-mailbox sandbox --dns-file` with bad JSON exits 2 with the reason and the expected format, and starts nothing', async () => {
    const run = await runCli(['sandbox', '--json', '--dns-file', await dnsFile('broken.json', '{"TXT": ')]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^agent-mailbox sandbox: The DNS file .*broken\.json is not JSON: .+\nWrite it as JSON like \{"TXT": \{"example\.org": \["v=spf1 ip4:127\.0\.0\.1 -all"\]\}/,
    );
  });

  it('`agent-mailbox sandbox --dns-file` serves the file to the checks of mail from outside', async () => {
    const example = outsideDomain('example.org');
    const path = await dnsFile('example.json', {
      TXT: Object.fromEntries(
        Object.entries(example.records.TXT ?? {}).map(([name, records]) => [
          name,
          records.map((parts) => parts.join('')),
        ]),
      ),
    });
    const stdout = new PassThrough();
    let printed = '';
    stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const controller = new AbortController();
    const running = runSandboxCommand(
      { json: true, difficulty: 2, dnsFile: path, authservId: 'mx.agent-mailbox.test' },
      { stdout, stderr: new PassThrough(), signal: controller.signal },
    );
    try {
      const ready = JSON.parse(
        await pollUntil(() => (printed.includes('\n') ? printed : undefined), 15_000, 'the JSON line'),
      ) as { authUrl: string; apiUrl: string; salt: string; smtpPort: number; authservId: string };
      expect(ready.authservId).toBe('mx.agent-mailbox.test');
      const inbox = await signUp(ready.authUrl, 'dns-file-user', ready.salt);
      const raw = await example.sign(
        await composeMail({ from: 'news@example.org', to: inbox.address, subject: 'via the file' }),
      );
      await sendRaw(ready.smtpPort, raw, { from: 'news@example.org', to: inbox.address });
      const [ours = ''] = authenticationResults(await headersOf(ready.apiUrl, inbox, 'via the file'));
      expect(ours).toMatch(
        /^mx\.agent-mailbox\.test; dkim=pass header\.i=@example\.org .*; spf=pass \(mx\.agent-mailbox\.test: domain of news@example\.org designates 127\.0\.0\.1 as permitted sender\) .*; dmarc=pass /,
      );
    } finally {
      controller.abort();
      expect(await running).toBe(0);
    }
  });
});
