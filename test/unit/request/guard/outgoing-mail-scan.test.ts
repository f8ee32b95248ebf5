import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../../../src/gate/outgoing.js';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import { readOutgoingMail } from '../../../../src/request/guard/mail/outgoing-mail.js';
import { refusal } from '../../../helpers/mailbox-refusal.js';

/**
 * Exactly what the secret scan reads of a mail about to leave, and under which name it tells the
 * operator where a secret was found: the subject, the body, every header field, address and name
 * (however deep in the create), and each attachment under the name it travels with. Nothing of the
 * mail may fall outside these parts, and nothing may be read twice under a wrong name.
 */

const blobs: Record<string, string> = { b1: 'first file', b2: 'second', b3: 'nested bytes', 'blob-raw': '' };

function context(answer?: (request: JmapRequest) => JmapResponse): CheckContext & { requests: JmapRequest[] } {
  const requests: JmapRequest[] = [];
  return {
    requests,
    session: async () => ({ accountId: 'acc-1' }),
    read: async (request: JmapRequest): Promise<JmapResponse> => {
      requests.push(request);
      return answer
        ? answer(request)
        : ({
            methodResponses: [['Email/get', { list: [{ id: 'm1', blobId: 'blob-raw' }] }, 'mail']],
          } as unknown as JmapResponse);
    },
    download: async (blobId: string): Promise<Uint8Array> => Buffer.from(blobs[blobId] ?? ''),
  } as unknown as CheckContext & { requests: JmapRequest[] };
}

const create = (fields: Record<string, unknown>) => ({
  kind: 'create' as const,
  creationId: 'c',
  callIndex: 0,
  create: fields,
});

describe('the parts the secret scan reads of a mail created in the batch', () => {
  it('are the subject, the bodies, every other string of the create, and each attachment under its name', async () => {
    const mail = await readOutgoingMail(
      create({
        subject: 'Figures',
        bodyValues: {
          1: { value: 'first body' },
          2: { value: 'second body' },
          3: { isTruncated: true },
          4: 'not a body value',
        },
        to: [{ name: 'Bob', email: 'bob@example.test' }],
        replyTo: null,
        'header:X-Ticket:asText': 'T-42',
        attachments: [{ name: 'report.txt', blobId: 'b1', size: 99 }, { blobId: 'b2' }],
        bodyStructure: { name: 'outer.zip', part: { blobId: 'b3' } },
      }),
      context(),
      new Map(),
    );
    expect(mail.scanParts).toEqual([
      { where: 'the subject', text: 'Figures' },
      { where: 'the body', text: 'first body\nsecond body' },
      { where: 'the header fields, addresses and names', text: 'Bob\nbob@example.test\nT-42\nreport.txt\nouter.zip' },
      { where: 'the attachment report.txt', text: 'first file' },
      { where: 'the attachment b2', text: 'second' },
      { where: 'the attachment outer.zip', text: 'nested bytes' },
    ]);
    expect(mail.attachments).toEqual([
      { name: 'report.txt', size: 10 },
      { name: 'b2', size: 6 },
      { name: 'outer.zip', size: 12 },
    ]);
    expect(mail.firstLines).toBe('first body');
  });

  it('are empty where a create has no subject, no bodies and nothing else', async () => {
    const mail = await readOutgoingMail(create({}), context(), new Map());
    expect(mail.scanParts).toEqual([
      { where: 'the subject', text: '' },
      { where: 'the body', text: '' },
      { where: 'the header fields, addresses and names', text: '' },
    ]);
    expect(mail.firstLines).toBe('');
  });

  it('show a first line of exactly 500 characters whole', async () => {
    const mail = await readOutgoingMail(
      create({ bodyValues: { 1: { value: 'y'.repeat(500) } } }),
      context(),
      new Map(),
    );
    expect(mail.firstLines).toBe('y'.repeat(500));
  });
});

describe('the parts the secret scan reads of a raw message', () => {
  const rawMail = (lines: string[]): Record<string, string> => ({ 'blob-raw': lines.join('\r\n') });

  it('include the HTML body after the text body, and every header line by name', async () => {
    Object.assign(
      blobs,
      rawMail([
        'From: ada@agent-mailbox.test',
        'To: bob@example.test',
        'Subject: Hi',
        'Content-Type: multipart/alternative; boundary="a"',
        '',
        '--a',
        'Content-Type: text/plain',
        '',
        'plain words',
        '--a',
        'Content-Type: text/html',
        '',
        '<p>html words</p>',
        '--a--',
        '',
      ]),
    );
    const mail = await readOutgoingMail({ kind: 'server', emailId: 'm1' }, context(), new Map());
    const parts = Object.fromEntries(mail.scanParts.map((p) => [p.where, p.text]));
    expect(parts['the body']).toMatch(/^plain words\n*\n<p>html words<\/p>\n*$/);
    expect(parts['the header fields, addresses and names']).toContain(
      'from: ada@agent-mailbox.test\nto: bob@example.test\nsubject: Hi',
    );
  });

  it('are empty strings where the message has no subject and no text', async () => {
    Object.assign(blobs, rawMail(['From: ada@agent-mailbox.test', 'To: bob@example.test', '', '']));
    const mail = await readOutgoingMail({ kind: 'server', emailId: 'm1' }, context(), new Map());
    expect(mail.subject).toBe('');
    expect(mail.firstLines).toBe('');
    expect(mail.scanParts.slice(0, 2)).toEqual([
      { where: 'the subject', text: '' },
      { where: 'the body', text: '\n' },
    ]);
  });
});

describe('a mail already on the server', () => {
  it('is found by asking for its blob id alone, with the mail capability', async () => {
    Object.assign(blobs, { 'blob-raw': 'Subject: x\r\n\r\nbody\r\n' });
    const ctx = context();
    await readOutgoingMail({ kind: 'server', emailId: 'm1' }, ctx, new Map());
    expect(ctx.requests).toEqual([
      {
        using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
        methodCalls: [['Email/get', { accountId: 'acc-1', ids: ['m1'], properties: ['blobId'] }, 'mail']],
      },
    ]);
  });

  it('is refused with a way forward when the server answers nothing about it', async () => {
    const error = await refusal(
      readOutgoingMail(
        { kind: 'server', emailId: 'm9' },
        context(() => ({ methodResponses: [] }) as unknown as JmapResponse),
        new Map(),
      ),
    );
    expect(error.code).toBe('policy_refused');
    expect(error.hint).toBe('Send a mail id from list_inbox, list_sent or a draft you created.');
  });
});
