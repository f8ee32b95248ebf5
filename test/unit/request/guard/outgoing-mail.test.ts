import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../../src/errors.js';
import type { CheckContext } from '../../../../src/gate/outgoing.js';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import { callMemo, maxBlobBytes } from '../../../../src/request/guard/mail/blob-lookup.js';
import { readOutgoingMail } from '../../../../src/request/guard/mail/outgoing-mail.js';

/**
 * What the guard reads of a mail about to leave when it is not a create of the same batch: one
 * already on the server (its raw message, found by its id) or imported from a blob, parsed so that
 * encoded bodies and attachments are judged decoded; and the blob sources a batch may assemble.
 */

const raw = [
  'From: Ada <ada@agent-mailbox.test>',
  'To: Bob <bob@example.test>, "Carol" <carol@example.test>',
  'Cc: dave@example.test',
  'Subject: =?utf-8?q?Quarterly_figures?=',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b"',
  '',
  '--b',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: base64',
  '',
  Buffer.from('line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\n').toString('base64'),
  '--b',
  'Content-Type: text/plain; name="keys.txt"',
  'Content-Disposition: attachment; filename="keys.txt"',
  'Content-Transfer-Encoding: base64',
  '',
  Buffer.from('AKIA-in-an-attachment').toString('base64'),
  '--b--',
  '',
].join('\r\n');

interface Server {
  blobs: Record<string, Uint8Array>;
  emails: Record<string, string>;
  downloads: string[];
}

function context(server: Server): CheckContext {
  return {
    session: async () => ({ accountId: 'acc-1' }),
    read: async (request: JmapRequest): Promise<JmapResponse> => {
      const ids = (request.methodCalls[0]?.[1] as { ids: string[] }).ids;
      const list = ids.filter((id) => id in server.emails).map((id) => ({ id, blobId: server.emails[id] }));
      return { methodResponses: [['Email/get', { list }, 'mail']] } as unknown as JmapResponse;
    },
    download: async (blobId: string, maxBytes: number): Promise<Uint8Array> => {
      server.downloads.push(blobId);
      const bytes = server.blobs[blobId];
      if (!bytes) throw new MailboxError({ code: 'bad_response', message: 'no blob', hint: 'x' });
      if (bytes.byteLength > maxBytes)
        throw new MailboxError({ code: 'response_too_large', message: 'too large', hint: 'x' });
      return bytes;
    },
  } as Partial<CheckContext> as CheckContext;
}

const server = (): Server => ({
  blobs: { 'blob-raw': Buffer.from(raw) },
  emails: { 'mail-1': 'blob-raw' },
  downloads: [],
});

describe('the mail a submission of an existing mail sends', () => {
  it('is read from its raw message: recipients from the headers, subject and body decoded, attachments by name and size', async () => {
    const mail = await readOutgoingMail({ kind: 'server', emailId: 'mail-1' }, context(server()), new Map());
    expect(mail.headerRecipients.addresses.map((a) => a.address).sort()).toEqual([
      'bob@example.test',
      'carol@example.test',
      'dave@example.test',
    ]);
    expect(mail.subject).toBe('Quarterly figures');
    expect(mail.firstLines).toBe('line 1\nline 2\nline 3\nline 4\nline 5\nline 6');
    expect(mail.attachments).toEqual([{ name: 'keys.txt', size: 'AKIA-in-an-attachment'.length }]);
    const scanned = Object.fromEntries(mail.scanParts.map((p) => [p.where, p.text]));
    expect(scanned['the subject']).toBe('Quarterly figures');
    expect(scanned['the body']).toContain('line 7');
    expect(scanned['the header fields, addresses and names']).toContain('cc: dave@example.test');
    expect(scanned['the attachment keys.txt']).toBe('keys.txt\nAKIA-in-an-attachment');
  });

  it('is refused as unjudgeable when the id is not a mail of this inbox', async () => {
    const error = (await readOutgoingMail(
      { kind: 'server', emailId: 'mail-of-another' },
      context(server()),
      new Map(),
    ).catch((e: unknown) => e)) as MailboxError;
    expect(error).toMatchObject({
      code: 'policy_refused',
      details: { rule: { layer: 'default', rule: 'unjudgeable' } },
    });
    expect(error.message).toContain('(mail-of-another) is not in this inbox');
  });

  it('reads an imported blob once per call however often it is referenced', async () => {
    const s = server();
    const ctx = context(s);
    await readOutgoingMail({ kind: 'import', creationId: 'i', callIndex: 0, blobId: 'blob-raw' }, ctx, new Map());
    await readOutgoingMail({ kind: 'import', creationId: 'j', callIndex: 1, blobId: 'blob-raw' }, ctx, new Map());
    expect(s.downloads).toEqual(['blob-raw']);
  });

  it('takes a file uploaded earlier in the call from memory', async () => {
    const s = server();
    const ctx = context(s);
    callMemo(ctx).uploads.set('blob-up', { bytes: Buffer.from(raw) });
    expect(
      (await readOutgoingMail({ kind: 'import', creationId: 'i', callIndex: 0, blobId: 'blob-up' }, ctx, new Map()))
        .subject,
    ).toBe('Quarterly figures');
    expect(s.downloads).toEqual([]);
  });

  it('assembles a blob the batch uploads from text, base64 and a range of another blob', async () => {
    const s = server();
    s.blobs['blob-tail'] = Buffer.from(`xx${raw.slice(200)}yy`);
    const uploads = new Map<string, unknown>([
      [
        'up',
        {
          data: [
            { 'data:asText': raw.slice(0, 100) },
            { 'data:asBase64': Buffer.from(raw.slice(100, 200)).toString('base64') },
            { blobId: 'blob-tail', offset: 2, length: raw.length - 200 },
          ],
        },
      ],
    ]);
    const mail = await readOutgoingMail(
      { kind: 'import', creationId: 'i', callIndex: 0, blobId: '#up' },
      context(s),
      uploads,
    );
    expect(mail.subject).toBe('Quarterly figures');
    expect(mail.attachments).toEqual([{ name: 'keys.txt', size: 21 }]);
  });

  it('takes the rest of a blob when a range gives no length, and all of it with no offset', async () => {
    const s = server();
    s.blobs['blob-tail'] = Buffer.from(raw.slice(100));
    const uploads = new Map<string, unknown>([
      ['up', { data: [{ 'data:asText': raw.slice(0, 100) }, { blobId: 'blob-tail' }] }],
      ['up2', { data: [{ blobId: 'blob-raw', offset: 0 }] }],
    ]);
    expect(
      (await readOutgoingMail({ kind: 'import', creationId: 'i', callIndex: 0, blobId: '#up' }, context(s), uploads))
        .subject,
    ).toBe('Quarterly figures');
    expect(
      (await readOutgoingMail({ kind: 'import', creationId: 'i', callIndex: 0, blobId: '#up2' }, context(s), uploads))
        .subject,
    ).toBe('Quarterly figures');
  });

  it('scans an attachment the batch assembles byte for byte: text, base64 and exactly the range asked of another blob', async () => {
    const s = server();
    s.blobs['blob-digits'] = Buffer.from('0123456789');
    const uploads = new Map<string, unknown>([
      [
        'up',
        {
          data: [
            { 'data:asText': 'AB' },
            { 'data:asBase64': Buffer.from('cd').toString('base64') },
            { blobId: 'blob-digits', offset: 2, length: 3 },
            { blobId: 'blob-digits', offset: 8 },
          ],
        },
      ],
    ]);
    const create = { subject: 'S', attachments: [{ blobId: '#up', name: 'a.txt', type: 'text/plain' }] };
    const mail = await readOutgoingMail({ kind: 'create', creationId: 'c', callIndex: 0, create }, context(s), uploads);
    expect(mail.attachments).toEqual([{ name: 'a.txt', size: 9 }]);
    expect(mail.scanParts.find((p) => p.where === 'the attachment a.txt')?.text).toBe('ABcd23489');
  });

  it('refuses a blob it cannot read: created nowhere, from a source it cannot follow, or too large', async () => {
    const s = server();
    s.blobs['blob-huge'] = new Uint8Array(maxBlobBytes + 1);
    const cases: Array<[string, Map<string, unknown>, RegExp]> = [
      ['#missing', new Map(), /it is created nowhere in this request/],
      ['#up', new Map([['up', { data: [{ blobId: '#other' }] }]]), /one of its data sources cannot be read here/],
      ['#up', new Map([['up', { data: 'not a list' }]]), /it is created nowhere in this request/],
      ['blob-huge', new Map(), new RegExp(`larger than ${maxBlobBytes} bytes`)],
    ];
    for (const [blobId, uploads, why] of cases) {
      const error = (await readOutgoingMail(
        { kind: 'import', creationId: 'i', callIndex: 0, blobId },
        context(s),
        uploads,
      ).catch((e: unknown) => e)) as MailboxError;
      expect(error, blobId).toMatchObject({ code: 'policy_refused', details: { rule: { rule: 'unjudgeable' } } });
      expect(error.message, blobId).toMatch(why);
    }
    // Any other failure of the download is passed on as it was.
    await expect(
      readOutgoingMail({ kind: 'import', creationId: 'i', callIndex: 0, blobId: 'blob-gone' }, context(s), new Map()),
    ).rejects.toMatchObject({ code: 'bad_response', message: 'no blob' });
  });

  it('shows at most 500 characters of the first lines of a created mail', async () => {
    const mail = await readOutgoingMail(
      {
        kind: 'create',
        creationId: 'c',
        callIndex: 0,
        create: { subject: 'S', bodyValues: { 1: { value: 'x'.repeat(600) } } },
      },
      context(server()),
      new Map(),
    );
    expect(mail.firstLines).toBe(`${'x'.repeat(500)}…`);
    const short = await readOutgoingMail(
      { kind: 'create', creationId: 'c', callIndex: 0, create: { subject: 7, bodyValues: { 1: { value: 'a\r\nb' } } } },
      context(server()),
      new Map(),
    );
    expect(short.firstLines).toBe('a\nb');
    expect(short.subject).toBe('');
  });
});
