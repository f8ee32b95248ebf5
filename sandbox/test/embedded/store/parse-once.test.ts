import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostileHeaders } from '../../../../bench/hostile-header-fixtures.js';
import { parseHeaderProperty } from '../../../src/embedded/mime/header-forms.js';
import { parseMessage } from '../../../src/embedded/mime/parse-message.js';
import { defaultMessageParser, ParsedEmail, type MessageParser } from '../../../src/embedded/mime/parsed-email.js';
import { resultOf, startJmapTestHost, testDomain, type JmapTestHost } from '../../helpers/jmap-test-host.js';

const dave = `dave@${testDomain}`;

/** The real parser, counting its calls. */
function countingParser(): MessageParser & { parseCalls: number; factsCalls: number } {
  const counts = { parseCalls: 0, factsCalls: 0 };
  return Object.assign(counts, {
    parse(raw: Buffer) {
      counts.parseCalls += 1;
      return defaultMessageParser.parse(raw);
    },
    facts(parsed: Parameters<MessageParser['facts']>[0]) {
      counts.factsCalls += 1;
      return defaultMessageParser.facts(parsed);
    },
  });
}

/** A message whose header section is the hostile one: a 250 KB From, Subject, Cc and Reply-To. */
function hostileMessage(): Buffer {
  const lines = [
    ...hostileHeaders(),
    `To: ${dave}`,
    'Message-ID: <hostile@evil.example>',
    'Date: Mon, 2 Mar 2026 09:00:00 +0000',
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\nwire the money\r\n`, 'latin1');
}

function plainMessage(n: number): Buffer {
  const lines = [
    `From: Friend ${n} <friend${n}@fine.example>`,
    `To: ${dave}`,
    `Subject: ordinary ${n}`,
    `Message-ID: <m${n}@fine.example>`,
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\nbody ${n}\r\n`);
}

const listingProperties = [
  'from',
  'sender',
  'subject',
  'cc',
  'replyTo',
  'preview',
  'header:Authentication-Results:asRaw:all',
  'header:cc:asAddresses',
  'header:Reply-To:asGroupedAddresses:all',
  'header:X-Absent:asText',
  'header:X-Absent:all',
];

function get(host: JmapTestHost, ids: string[] | null, properties = listingProperties) {
  return host
    .call('dave', [['Email/get', { accountId: dave, ids, properties }, 'g']])
    .then((responses) => resultOf(responses, 'g')['list'] as Record<string, unknown>[]);
}

async function deliver(host: JmapTestHost, raw: Buffer): Promise<string> {
  await host.backend.deliverInbound(raw, { from: 'mallory@evil.example', to: [dave] });
  const responses = await host.call('dave', [
    ['Email/query', { accountId: dave, sort: [{ property: 'receivedAt', isAscending: false }], limit: 1 }, 'q'],
  ]);
  return (resultOf(responses, 'q')['ids'] as string[])[0] as string;
}

describe('the embedded store parses each stored message once', () => {
  const hosts: JmapTestHost[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  async function start(parser: MessageParser, extra: { parseCacheBytes?: number; dataDir?: string } = {}) {
    const { dataDir, ...cache } = extra;
    const host = await startJmapTestHost({ ...(dataDir ? { dataDir } : {}), parseCache: { parser, ...cache } });
    hosts.push(host);
    await host.addInboxes('dave');
    return host;
  }

  it('answers two Email/get calls of a 250 KB header section from one parse and one derivation of its facts', async () => {
    const parser = countingParser();
    const host = await start(parser);
    const id = await deliver(host, hostileMessage());
    expect(parser.parseCalls).toBe(1);
    const first = await get(host, [id]);
    const second = await get(host, [id]);
    expect(parser.parseCalls).toBe(1);
    expect(parser.factsCalls).toBe(1);
    expect(second).toEqual(first);
    const [email] = first as [Record<string, any>];
    expect(email['subject']).toMatch(/^URGENT wire wire/);
    expect(email['cc']).toHaveLength(1500);
    expect(email['header:cc:asAddresses']).toEqual(email['cc']);
    expect(email['header:Authentication-Results:asRaw:all']).toHaveLength(40);
    expect(email['header:X-Absent:asText']).toBeNull();
    expect(email['header:X-Absent:all']).toEqual([]);
  });

  it('sorts, filters and snippets by the same parse, then answers Email/get from it', async () => {
    const parser = countingParser();
    const host = await start(parser);
    const hostile = await deliver(host, hostileMessage());
    await deliver(host, plainMessage(1));
    expect(parser.parseCalls).toBe(2);
    const query = async (property: string, filter: Record<string, unknown>) =>
      resultOf(
        await host.call('dave', [
          ['Email/query', { accountId: dave, filter, sort: [{ property, isAscending: true }] }, 'q'],
        ]),
        'q',
      )['ids'] as string[];
    expect(await query('from', { from: 'ceo@bank.test' })).toEqual([hostile]);
    expect(await query('subject', { header: ['Reply-To', 'p999@evil.test'] })).toEqual([hostile]);
    expect(await query('sentAt', { text: 'wire the money' })).toEqual([hostile]);
    await host.call('dave', [
      ['SearchSnippet/get', { accountId: dave, emailIds: [hostile], filter: { subject: 'urgent' } }, 's'],
    ]);
    await get(host, null);
    expect(parser.parseCalls).toBe(2);
    expect(parser.factsCalls).toBe(2);
  });

  it('parses again only what the bounded cache let go, least recently read first, with the same answers', async () => {
    const sizing = await start(countingParser());
    const sizes = await Promise.all([1, 2, 3].map((n) => deliver(sizing, plainMessage(n))));
    const stored = (await get(sizing, sizes, ['size'])).map((email) => email['size'] as number);
    // Room for two messages and their overhead with some slack, never for a third.
    const parser = countingParser();
    const host = await start(parser, { parseCacheBytes: 2 * (Math.max(...stored) + 4096) + 256 });
    const ids = [];
    for (const n of [1, 2, 3]) ids.push(await deliver(host, plainMessage(n)));
    const delivered = parser.parseCalls;
    const cold = await get(host, [ids[0] as string]);
    expect(parser.parseCalls).toBe(delivered + 1);
    await get(host, [ids[2] as string]);
    expect(parser.parseCalls).toBe(delivered + 1);
    await get(host, [ids[1] as string]);
    expect(parser.parseCalls).toBe(delivered + 2);
    expect(await get(host, [ids[0] as string])).toEqual(cold);
    expect(parser.parseCalls).toBe(delivered + 3);
  });

  it('keeps no parse of a message larger than the whole cache, and still answers it right', async () => {
    const parser = countingParser();
    const host = await start(parser, { parseCacheBytes: 64 * 1024 });
    const id = await deliver(host, hostileMessage());
    const delivered = parser.parseCalls;
    const first = await get(host, [id]);
    const second = await get(host, [id]);
    expect(parser.parseCalls).toBe(delivered + 2);
    expect(second).toEqual(first);
  });

  it('parses a message read back from the data directory once, on its first read', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agent-mailbox-parse-once-'));
    dirs.push(dataDir);
    const before = await start(countingParser(), { dataDir });
    const id = await deliver(before, hostileMessage());
    const expected = await get(before, [id]);
    await (hosts.pop() as JmapTestHost).close();
    const parser = countingParser();
    const after = await startJmapTestHost({ dataDir, parseCache: { parser } });
    hosts.push(after);
    expect(parser.parseCalls).toBe(0);
    expect(await get(after, [id])).toEqual(expected);
    expect(await get(after, [id])).toEqual(expected);
    expect(parser.parseCalls).toBe(1);
    expect(parser.factsCalls).toBe(1);
  });
});

describe('ParsedEmail', () => {
  it('converts a header form once and shares it frozen, so no request can change what the next one reads', async () => {
    const message = new ParsedEmail(await parseMessage(hostileMessage()));
    const cc = parseHeaderProperty('header:Cc:asAddresses');
    if (!cc) throw new Error('header:Cc:asAddresses must parse');
    const first = message.header(cc) as { email: string }[];
    expect(message.header(cc)).toBe(first);
    expect(first[0]?.email).toBe('p0@bank.test');
    expect(() => first.push({ email: 'x@evil.test' })).toThrow(TypeError);
    expect(() => {
      (first[0] as { email: string }).email = 'x@evil.test';
    }).toThrow(TypeError);
    expect(() => (message.facts.from as unknown[]).pop()).toThrow(TypeError);
    expect(() => (message.parsed.headers as unknown[]).pop()).toThrow(TypeError);
    expect(message.facts).toBe(message.facts);
  });

  it('reads header fields by name whatever their case, in message order', async () => {
    const message = new ParsedEmail(await parseMessage(hostileMessage()));
    expect(message.fieldValues('AUTHENTICATION-RESULTS')).toHaveLength(40);
    expect(message.fieldValues('authentication-results')[0]).toMatch(/^ ?mx0\.relay\.example;/);
    expect(message.fieldValues('X-Absent')).toEqual([]);
  });
});
