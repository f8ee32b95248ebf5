import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../helpers/jmap-test-host.js';

const carol = 'carol@agent-mailbox.test';
const subject = 'Привет, Кэрол — 請求書 📎';
const attachment = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x10]);

function composeInbound(): Promise<Buffer> {
  return new MailComposer({
    from: { name: 'Outside Sender', address: 'sender@example.org' },
    to: carol,
    subject,
    messageId: '<inbound-1@example.org>',
    inReplyTo: '<earlier@example.org>',
    references: ['<root@example.org>', '<earlier@example.org>'],
    text: 'Здравствуйте! Siehe Anhang. ✓',
    html: '<p>Здравствуйте! <i>Siehe Anhang.</i> ✓</p>',
    attachments: [{ filename: 'scan ✓.png', content: attachment, contentType: 'image/png' }],
  })
    .compile()
    .build();
}

describe('mail from outside (deliverInbound)', () => {
  let host: JmapTestHost;
  beforeAll(async () => {
    host = await startJmapTestHost();
    await host.addInboxes('carol');
  });
  afterAll(() => host.close());

  it('delivers to a local inbox with Unicode subject and attachment intact, and rejects unknown recipients', async () => {
    const boxes = await mailboxIds(host, 'carol');
    const before = resultOf(await host.call('carol', [['Email/get', { accountId: carol, ids: [] }, 'g']]), 'g')[
      'state'
    ];
    const threadsBefore = resultOf(await host.call('carol', [['Thread/get', { accountId: carol, ids: [] }, 't']]), 't')[
      'state'
    ];
    const result = await host.backend.deliverInbound(await composeInbound(), {
      from: 'sender@example.org',
      to: [carol, 'CAROL@agent-mailbox.test', 'nobody@agent-mailbox.test', 'x@example.org'],
    });
    expect(result).toEqual({ accepted: [carol], rejected: ['nobody@agent-mailbox.test', 'x@example.org'] });

    const responses = await host.call('carol', [
      ['Email/changes', { accountId: carol, sinceState: before }, 'c'],
      [
        'Email/get',
        {
          accountId: carol,
          '#ids': { resultOf: 'c', name: 'Email/changes', path: '/created' },
          properties: [
            'subject',
            'from',
            'messageId',
            'inReplyTo',
            'references',
            'mailboxIds',
            'keywords',
            'attachments',
            'hasAttachment',
            'textBody',
            'htmlBody',
            'bodyValues',
            'threadId',
          ],
          fetchAllBodyValues: true,
        },
        'g',
      ],
      ['Thread/changes', { accountId: carol, sinceState: threadsBefore }, 't'],
      ['Mailbox/get', { accountId: carol, ids: [boxes['inbox']], properties: ['unreadEmails', 'totalEmails'] }, 'm'],
    ]);
    const changes = resultOf(responses, 'c');
    expect(changes).toMatchObject({ oldState: before, updated: [], destroyed: [] });
    expect(changes['created']).toHaveLength(1);
    const email = resultOf(responses, 'g')['list'][0];
    expect(email).toMatchObject({
      subject,
      from: [{ name: 'Outside Sender', email: 'sender@example.org' }],
      messageId: ['inbound-1@example.org'],
      inReplyTo: ['earlier@example.org'],
      references: ['root@example.org', 'earlier@example.org'],
      mailboxIds: { [boxes['inbox'] as string]: true },
      keywords: {},
      hasAttachment: true,
    });
    expect(email['attachments']).toEqual([
      expect.objectContaining({ name: 'scan ✓.png', type: 'image/png', size: attachment.length }),
    ]);
    expect(email['bodyValues'][email['textBody'][0].partId].value).toBe('Здравствуйте! Siehe Anhang. ✓');
    expect(email['bodyValues'][email['htmlBody'][0].partId].value).toBe('<p>Здравствуйте! <i>Siehe Anhang.</i> ✓</p>');
    expect(resultOf(responses, 't')['created']).toEqual([email['threadId']]);
    expect(resultOf(responses, 'm')['list'][0]).toMatchObject({ unreadEmails: 1, totalEmails: 1 });

    const blob = resultOf(
      await host.call('carol', [
        [
          'Blob/get',
          {
            accountId: carol,
            ids: [email['attachments'][0].blobId],
            properties: ['data:asBase64', 'size', 'digest:sha-256'],
          },
          'b',
        ],
      ]),
      'b',
    );
    expect(Buffer.from(blob['list'][0]['data:asBase64'], 'base64').equals(attachment)).toBe(true);
  });
});

describe('blobs (RFC 8620 §6, RFC 9404)', () => {
  let host: JmapTestHost;
  const dora = 'dora@agent-mailbox.test';
  beforeAll(async () => {
    host = await startJmapTestHost();
    await host.addInboxes('dora', 'eve');
  });
  afterAll(() => host.close());

  it('Blob/upload joins text, base64 and ranges of other blobs, and Blob/get reads them back', async () => {
    const responses = await host.call('dora', [
      [
        'Blob/upload',
        {
          accountId: dora,
          create: {
            a: {
              data: [{ 'data:asText': 'Hello, ' }, { 'data:asBase64': Buffer.from('wörld').toString('base64') }],
              type: 'text/plain',
            },
          },
        },
        'u1',
      ],
      ['Blob/upload', { accountId: dora, create: { b: { data: [{ blobId: '#a', offset: 7, length: 6 }] } } }, 'u2'],
      ['Blob/get', { accountId: dora, ids: ['#a', '#b', 'Gmissing'], properties: ['data', 'size', 'digest:sha'] }, 'g'],
      ['Blob/get', { accountId: dora, ids: ['#a'], properties: ['data:asText'], offset: 0, length: 5 }, 'range'],
      [
        'Blob/upload',
        { accountId: dora, create: { c: { data: [{ blobId: 'Gmissing' }] }, d: { data: [{ nonsense: 1 }] } } },
        'bad',
      ],
    ]);
    expect(resultOf(responses, 'u1')['created']['a']).toMatchObject({
      type: 'text/plain',
      size: Buffer.byteLength('Hello, wörld'),
    });
    const get = resultOf(responses, 'g');
    expect(get['list'][0]).toMatchObject({ 'data:asText': 'Hello, wörld', size: 13 });
    expect(get['list'][0]['digest:sha']).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(get['list'][1]).toMatchObject({ 'data:asText': 'wörld', size: 6 });
    expect(get['notFound']).toEqual(['Gmissing']);
    expect(resultOf(responses, 'range')['list'][0]).toMatchObject({ 'data:asText': 'Hello' });
    const bad = resultOf(responses, 'bad')['notCreated'];
    expect(bad['c']).toMatchObject({ type: 'blobNotFound' });
    expect(bad['d']).toMatchObject({ type: 'invalidProperties' });
  });

  it('keeps blobs scoped to their account for download, upload and Blob/get', async () => {
    const upload = await fetch(`${host.baseUrl}/upload/${encodeURIComponent(dora)}/`, {
      method: 'POST',
      headers: { authorization: 'Bearer token-dora', 'content-type': 'text/plain' },
      body: 'secret',
    });
    const { blobId } = (await upload.json()) as { blobId: string };
    const asEve = { authorization: 'Bearer token-eve' };
    const crossDownload = await fetch(
      `${host.baseUrl}/download/${encodeURIComponent(dora)}/${blobId}/x.txt?type=text/plain`,
      { headers: asEve },
    );
    expect(crossDownload.status).toBe(404);
    const ownPathDownload = await fetch(
      `${host.baseUrl}/download/${encodeURIComponent('eve@agent-mailbox.test')}/${blobId}/x.txt`,
      { headers: asEve },
    );
    expect(ownPathDownload.status).toBe(404);
    const crossUpload = await fetch(`${host.baseUrl}/upload/${encodeURIComponent(dora)}/`, {
      method: 'POST',
      headers: { ...asEve, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(crossUpload.status).toBe(403);
    const get = resultOf(
      await host.call('eve', [['Blob/get', { accountId: 'eve@agent-mailbox.test', ids: [blobId] }, 'g']]),
      'g',
    );
    expect(get['notFound']).toEqual([blobId]);
    const drafts = (await mailboxIds(host, 'dora'))['drafts'] as string;
    const created = resultOf(
      await host.call('dora', [
        ['Email/set', { accountId: dora, create: { d: { mailboxIds: { [drafts]: true }, subject: 'mine' } } }, 's'],
      ]),
      's',
    );
    const doraEmail = created['created']['d']['id'];
    const eveView = await host.call('eve', [
      ['Email/get', { accountId: 'eve@agent-mailbox.test', ids: [doraEmail] }, 'g'],
      ['Email/set', { accountId: 'eve@agent-mailbox.test', destroy: [doraEmail] }, 's'],
    ]);
    expect(resultOf(eveView, 'g')['notFound']).toEqual([doraEmail]);
    expect(resultOf(eveView, 's')['notDestroyed'][doraEmail]).toMatchObject({ type: 'notFound' });
  });
});

describe('persistence with a data directory', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps inboxes, mail, blobs, states and the outbox across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'embedded-jmap-'));
    dirs.push(dataDir);
    const first = await startJmapTestHost({ dataDir });
    await first.addInboxes('carol', 'frank');
    await first.backend.deliverInbound(await composeInbound(), { from: 'sender@example.org', to: [carol] });
    const boxes = await mailboxIds(first, 'frank');
    const upload = await fetch(`${first.baseUrl}/upload/${encodeURIComponent('frank@agent-mailbox.test')}/`, {
      method: 'POST',
      headers: { authorization: 'Bearer token-frank', 'content-type': 'text/plain' },
      body: 'kept ✓',
    });
    const { blobId } = (await upload.json()) as { blobId: string };
    await first.call('frank', [
      [
        'Email/set',
        {
          accountId: 'frank@agent-mailbox.test',
          create: {
            d: {
              mailboxIds: { [boxes['drafts'] as string]: true },
              from: [{ email: 'frank@agent-mailbox.test' }],
              to: [{ email: 'far@example.org' }],
              subject: 'Bis bald',
              attachments: [{ blobId, type: 'text/plain', name: 'note.txt' }],
            },
          },
        },
        '0',
      ],
      ['EmailSubmission/set', { accountId: 'frank@agent-mailbox.test', create: { s: { emailId: '#d' } } }, '1'],
    ]);
    const snapshot = async (host: JmapTestHost) =>
      host.call('carol', [
        ['Email/query', { accountId: carol }, 'q'],
        [
          'Email/get',
          {
            accountId: carol,
            '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
            properties: [
              'subject',
              'blobId',
              'threadId',
              'mailboxIds',
              'keywords',
              'receivedAt',
              'size',
              'attachments',
            ],
          },
          'g',
        ],
        ['Mailbox/get', { accountId: carol, ids: null }, 'm'],
      ]);
    const before = await snapshot(first);
    const emailState = resultOf(before, 'g')['state'];
    await first.close();
    expect(readdirSync(join(dataDir, 'inboxes'))).toHaveLength(2);
    expect(readFileSync(join(dataDir, 'outbox.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);

    const second = await startJmapTestHost({ dataDir });
    try {
      const after = await snapshot(second);
      expect(after).toEqual(before);
      const email = resultOf(after, 'g')['list'][0];
      const download = await fetch(
        `${second.baseUrl}/download/${encodeURIComponent(carol)}/${email['attachments'][0].blobId}/scan.png`,
        { headers: { authorization: 'Bearer token-carol' } },
      );
      expect(Buffer.from(await download.arrayBuffer()).equals(attachment)).toBe(true);
      const frankBlob = resultOf(
        await second.call('frank', [['Blob/get', { accountId: 'frank@agent-mailbox.test', ids: [blobId] }, 'b']]),
        'b',
      );
      expect(frankBlob['list'][0]).toMatchObject({ 'data:asText': 'kept ✓' });
      expect(
        resultOf(await second.call('carol', [['Email/changes', { accountId: carol, sinceState: '0' }, 'c']]), 'c'),
      ).toMatchObject({ newState: emailState, created: [email['id']] });
      expect((await second.backend.outbox()).map((entry) => entry.subject)).toEqual(['Bis bald']);
      const frankSent = resultOf(
        await second.call('frank', [['EmailSubmission/get', { accountId: 'frank@agent-mailbox.test' }, 's']]),
        's',
      );
      expect(frankSent['list']).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
