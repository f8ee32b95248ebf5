import { describe, expect, it } from 'vitest';
import type { JmapRequest, JmapResponse } from '../../../src/jmap/jmap-types.js';
import { failure, fakeMailHost, mailbox, screenOf, type FakeMessage } from './fake-mail-host.js';

/** The receive screen where mail is read from blobs: Email/parse answers, and downloads. */

const core = 'urn:ietf:params:jmap:core';
const mail = 'urn:ietf:params:jmap:mail';

describe('ReceiveScreen and Email/parse', () => {
  const parse = (blobIds: string[], properties: string[]): JmapRequest => ({
    using: [core, mail],
    methodCalls: [['Email/parse', { accountId: 'acc-1', blobIds, properties }, 'p']],
  });

  it('judges a parsed message by the headers it was parsed with, and drops a held one naming its blob', async () => {
    const host = fakeMailHost(mailbox);
    const screen = screenOf(host);
    const request = parse(
      ['blob-M0', 'blob-M1'],
      ['subject', 'from', 'sender', 'header:Authentication-Results:asRaw:all'],
    );
    const answer = await host.lookup(request);
    await screen.screen(request, answer);
    expect(Object.keys(answer.methodResponses[0]?.[1].parsed as object)).toEqual(['blob-M1']);
    expect(answer.methodResponses[0]?.[1].notFound).toEqual(['blob-M0']);
    expect(host.requests).toHaveLength(1);
    expect(screen.report()).toEqual({
      count: 1,
      rules: [{ layer: 'inbox', rule: 'receive.block', count: 1 }],
      requested: [],
    });
  });

  it('parses the blobs again for their headers when the answer lacks them, and holds a message whose headers cannot be read', async () => {
    const host = fakeMailHost(mailbox);
    const screen = screenOf(host);
    const answer: JmapResponse = {
      methodResponses: [
        [
          'Email/parse',
          {
            parsed: {
              'blob-M0': { subject: 'spam' },
              'blob-M1': { subject: 'fine' },
              'blob-odd': { subject: 'no headers' },
            },
            notFound: ['blob-none'],
          },
          'p',
        ],
      ],
    };
    await screen.screen(parse(['blob-M0', 'blob-M1', 'blob-odd', 'blob-none'], ['subject']), answer);
    expect(host.requests).toEqual([
      {
        using: [core, mail],
        methodCalls: [
          [
            'Email/parse',
            {
              accountId: 'acc-1',
              blobIds: ['blob-M0', 'blob-M1', 'blob-odd'],
              properties: ['from', 'sender', 'header:Authentication-Results:asRaw:all'],
            },
            'p',
          ],
        ],
      },
    ]);
    expect(answer.methodResponses[0]?.[1]).toEqual({
      parsed: { 'blob-M1': { subject: 'fine' } },
      notFound: ['blob-none', 'blob-M0', 'blob-odd'],
    });
    expect(screen.report()?.rules).toEqual([
      { layer: 'inbox', rule: 'receive.block', count: 1 },
      { layer: 'default', rule: 'receive.unjudged', count: 1 },
    ]);
  });

  it('reads an Email/parse answer that parsed nothing, or holds entries that are not messages, without failing', async () => {
    const host = fakeMailHost(mailbox);
    const screen = screenOf(host);
    const answer: JmapResponse = {
      methodResponses: [
        ['Email/parse', { parsed: null, notFound: ['b1'] }, 'p'],
        ['Email/parse', { parsed: { b2: null }, notFound: [] }, 'p2'],
      ],
    };
    const before = structuredClone(answer);
    await screen.screen(parse(['b1'], ['subject']), answer);
    expect(answer).toEqual(before);
    expect(host.requests).toEqual([]);
  });

  it('shows the operator parsed messages it would hold, counting them by blob', async () => {
    const host = fakeMailHost(mailbox);
    const screen = screenOf(host, { includeHeld: true });
    const answer: JmapResponse = {
      methodResponses: [
        [
          'Email/parse',
          { parsed: { 'blob-M0': { subject: 'spam' }, 'blob-M1': { subject: 'fine' } }, notFound: [] },
          'p',
        ],
      ],
    };
    const before = structuredClone(answer);
    await screen.screen(parse(['blob-M0', 'blob-M1'], ['subject']), answer);
    expect(answer).toEqual(before);
    expect(screen.report()?.shownToOperator).toEqual(['blob:blob-M0']);
  });

  it('holds every parsed message when the parse lookup answers nothing readable', async () => {
    const screen = screenOf(fakeMailHost(mailbox), {
      lookup: async () => ({ methodResponses: [['Email/parse', { parsed: null }, 'p']] }),
    });
    const answer: JmapResponse = {
      methodResponses: [['Email/parse', { parsed: { 'blob-M1': { subject: 'fine' } } }, 'p']],
    };
    await screen.screen(parse(['blob-M1'], ['subject']), answer);
    expect(answer.methodResponses[0]?.[1]).toEqual({ parsed: {}, notFound: ['blob-M1'] });
    const silent = screenOf(fakeMailHost(mailbox), { lookup: async () => ({ methodResponses: [] }) });
    const again: JmapResponse = {
      methodResponses: [['Email/parse', { parsed: { 'blob-M1': { subject: 'fine' } } }, 'p']],
    };
    await silent.screen(parse(['blob-M1'], ['subject']), again);
    expect(again.methodResponses[0]?.[1]).toEqual({ parsed: {}, notFound: ['blob-M1'] });
  });
});

describe('ReceiveScreen.checkDownload', () => {
  const download = {
    properties: ['id', 'blobId', 'bodyStructure', 'from', 'sender', 'header:Authentication-Results:asRaw:all'],
    bodyProperties: ['blobId', 'subParts'],
  };
  const messages: FakeMessage[] = [
    { id: 'M1', from: 'ana@fine.test', parts: ['img-1'] },
    { id: 'M0', from: 'offers@spam.test', parts: ['img-0'] },
  ];

  it("lets a download of a shown message's own blob or any of its parts through, checking each pair once per call", async () => {
    const host = fakeMailHost(messages);
    const screen = screenOf(host);
    await screen.checkDownload('img-1', 'M1');
    expect(host.requests).toEqual([
      { using: [core, mail], methodCalls: [['Email/get', { accountId: 'acc-1', ids: ['M1'], ...download }, 'm']] },
    ]);
    await screen.checkDownload('img-1', 'M1');
    expect(host.requests).toHaveLength(1);
    await screen.checkDownload('blob-M1', 'M1');
    await screen.checkDownload('text-M1', 'M1');
    expect(host.requests).toHaveLength(3);
  });

  it('refuses a download that names no message, a message that does not exist, a held message, or a blob of another message', async () => {
    const host = fakeMailHost(messages);
    const screen = screenOf(host);
    const missing = await failure(screen.checkDownload('img-1', undefined));
    expect(missing).toMatchObject({
      code: 'invalid_input',
      message:
        "Your operator's receive rules apply to this inbox, so a download names the message it comes from: download.mail_id is missing.",
      hint: 'Give download.mail_id: the id of the message whose attachment this is (read_message shows the download call with it).',
    });
    expect(await failure(screen.checkDownload('img-1', 'M9'))).toMatchObject({
      code: 'attachment_invalid',
      message: 'There is no message M9 in this inbox; nothing was downloaded.',
      hint: "Take the message id and its attachment's blob id from read_message.",
    });
    const held = await failure(screen.checkDownload('img-0', 'M0'));
    expect(held).toMatchObject({
      code: 'policy_refused',
      message:
        "Message M0 is held back by your operator's receive rules: none of it is shown to you, its attachments included. Nothing was downloaded.",
    });
    expect(await failure(screen.checkDownload('img-0', 'M0'))).toMatchObject({ code: 'policy_refused' });
    expect(await failure(screen.checkDownload('img-0', 'M1'))).toMatchObject({
      code: 'attachment_invalid',
      message: 'Blob img-0 is not part of message M1; nothing was downloaded.',
      hint: 'Use the download call read_message shows for the attachment: it names the message and the blob together.',
    });
    expect(await failure(screen.checkDownload('img-0', 'M1'))).toMatchObject({ code: 'attachment_invalid' });
    expect(screen.report()).toEqual({
      count: 1,
      rules: [{ layer: 'inbox', rule: 'receive.block', count: 1 }],
      requested: [],
    });
  });

  it('does not let a blob checked with one message through with another', async () => {
    const host = fakeMailHost([...messages, { id: 'M2', from: 'offers@spam.test', parts: ['img-1'] }]);
    const screen = screenOf(host);
    await screen.checkDownload('img-1', 'M1');
    expect(await failure(screen.checkDownload('img-1', 'M2'))).toMatchObject({ code: 'policy_refused' });
  });

  it("checks nothing for the operator's view", async () => {
    const host = fakeMailHost(messages);
    await screenOf(host, { includeHeld: true }).checkDownload('img-0', 'M0');
    expect(host.requests).toEqual([]);
  });
});
