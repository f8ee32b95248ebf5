import { describe, expect, it } from 'vitest';
import type { JmapResponse } from '../../../src/jmap/jmap-types.js';
import { checkDownloadedMessage, type DownloadCheckDeps } from '../../../src/screen/screen-download.js';
import { emailOf, fakeMailHost } from './fake-mail-host.js';

const facts = {
  from: [{ email: 'ana@fine.test' }],
  sender: null,
  'header:Authentication-Results:asRaw:all': [' agent-mailbox.test; dmarc=pass'],
};
const answering = (list: unknown, held = false): DownloadCheckDeps => ({
  accountId: 'acc-1',
  lookup: async (): Promise<JmapResponse> => ({ methodResponses: [['Email/get', { list, notFound: [] }, 'm']] }),
  isHeld: async () => held,
});

describe('checkDownloadedMessage', () => {
  it("finds the blob anywhere in the message's parts, however deep, and past parts that are not objects", async () => {
    const email = {
      id: 'M1',
      ...facts,
      blobId: 'raw',
      bodyStructure: {
        subParts: [
          null,
          'junk',
          { blobId: 'a', subParts: [{ subParts: [{ blobId: 'deep' }] }] },
          { blobId: 'b', subParts: 'none' },
        ],
      },
    };
    for (const blobId of ['raw', 'a', 'deep', 'b'])
      await expect(checkDownloadedMessage(blobId, 'M1', answering([email]))).resolves.toBeUndefined();
    await expect(checkDownloadedMessage('other', 'M1', answering([email]))).rejects.toMatchObject({
      code: 'attachment_invalid',
    });
  });

  it('treats a message whose sender cannot be read as no message, and an empty id as none given', async () => {
    const email = { id: 'M1', blobId: 'raw', from: [{ email: 'ana@fine.test' }] };
    await expect(checkDownloadedMessage('raw', 'M1', answering([email]))).rejects.toMatchObject({
      code: 'attachment_invalid',
      message: 'There is no message M1 in this inbox; nothing was downloaded.',
    });
    await expect(
      checkDownloadedMessage('raw', 'M1', { ...answering([]), lookup: async () => ({ methodResponses: [] }) }),
    ).rejects.toMatchObject({ code: 'attachment_invalid' });
    await expect(
      checkDownloadedMessage('raw', '', answering([{ id: 'M1', ...facts, blobId: 'raw' }])),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('refuses a held message before looking at its parts, and judges it with the facts it read', async () => {
    const email = { id: 'M1', ...facts, blobId: 'raw' };
    const judged: unknown[] = [];
    const deps: DownloadCheckDeps = {
      ...answering([email]),
      isHeld: async (id, found) => {
        judged.push([id, found]);
        return true;
      },
    };
    await expect(checkDownloadedMessage('elsewhere', 'M1', deps)).rejects.toMatchObject({
      code: 'policy_refused',
      hint: 'Your operator set these rules; ask them if you need this message.',
    });
    expect(judged).toEqual([
      ['M1', { from: facts.from, sender: [], authenticationResults: facts['header:Authentication-Results:asRaw:all'] }],
    ]);
  });
});

describe('checkDownloadedMessage, what it asks the server and what it tells the agent', () => {
  const core = 'urn:ietf:params:jmap:core';
  const mail = 'urn:ietf:params:jmap:mail';

  it('asks the server for that one message, its blob, its parts and its sender facts, and nothing else', async () => {
    const host = fakeMailHost([{ id: 'M1', from: 'ana@fine.test', parts: ['photo'] }]);
    await checkDownloadedMessage('photo', 'M1', { accountId: 'acc-1', lookup: host.lookup, isHeld: async () => false });
    expect(host.requests).toEqual([
      {
        using: [core, mail],
        methodCalls: [
          [
            'Email/get',
            {
              accountId: 'acc-1',
              ids: ['M1'],
              properties: [
                'id',
                'blobId',
                'bodyStructure',
                'from',
                'sender',
                'header:Authentication-Results:asRaw:all',
              ],
              bodyProperties: ['blobId', 'subParts'],
            },
            'm',
          ],
        ],
      },
    ]);
  });

  it('finds a part the server gives only the properties asked for, and judges the Sender the server gave', async () => {
    // A server that, like a real one, answers each call with the properties it names and nothing more.
    const email = emailOf({ id: 'M1', from: 'ana@fine.test', sender: 'boss@blocked.test', parts: ['photo'] });
    const judged: unknown[] = [];
    const strict: DownloadCheckDeps = {
      accountId: 'acc-1',
      lookup: async (request) => {
        const [name, args, callId] = request.methodCalls[0]!;
        const ok =
          name === 'Email/get' &&
          request.using.includes(core) &&
          request.using.includes(mail) &&
          Array.isArray(args.ids) &&
          args.ids.includes('M1');
        if (!ok) return { methodResponses: [['error', { type: 'unknownMethod' }, callId]] };
        const properties = args.properties as string[];
        const keepPart = (part: Record<string, unknown>): Record<string, unknown> =>
          Object.fromEntries(
            (args.bodyProperties as string[])
              .filter((key) => key in part)
              .map((key) => [
                key,
                key === 'subParts' ? (part.subParts as Record<string, unknown>[]).map(keepPart) : part[key],
              ]),
          );
        const answer = Object.fromEntries(
          properties
            .filter((key) => key in email)
            .map((key) => [
              key,
              key === 'bodyStructure' ? keepPart(email.bodyStructure as Record<string, unknown>) : email[key],
            ]),
        );
        return { methodResponses: [[name, { list: [answer], notFound: [] }, callId]] };
      },
      isHeld: async (id, facts) => {
        judged.push(facts.sender);
        return false;
      },
    };
    for (const blobId of ['blob-M1', 'text-M1', 'photo'])
      await expect(checkDownloadedMessage(blobId, 'M1', strict)).resolves.toBeUndefined();
    expect(judged).toEqual([[{ name: null, email: 'boss@blocked.test' }], expect.anything(), expect.anything()]);
  });

  it('refuses a message whose Sender field cannot be read rather than judging it on From alone', async () => {
    const email = { id: 'M1', ...facts, sender: 'boss@blocked.test', blobId: 'raw' };
    let judged = false;
    const deps: DownloadCheckDeps = {
      ...answering([email]),
      isHeld: async () => {
        judged = true;
        return false;
      },
    };
    await expect(checkDownloadedMessage('raw', 'M1', deps)).rejects.toMatchObject({ code: 'attachment_invalid' });
    expect(judged).toBe(false);
  });

  it('says what went wrong and what to do next, for each refusal', async () => {
    const email = { id: 'M1', ...facts, blobId: 'raw' };
    await expect(checkDownloadedMessage('raw', undefined, answering([email]))).rejects.toMatchObject({
      code: 'invalid_input',
      message:
        "Your operator's receive rules apply to this inbox, so a download names the message it comes from: download.mail_id is missing.",
      hint: 'Give download.mail_id: the id of the message whose attachment this is (read_message shows the download call with it).',
    });
    await expect(checkDownloadedMessage('raw', 'M9', answering([]))).rejects.toMatchObject({
      code: 'attachment_invalid',
      message: 'There is no message M9 in this inbox; nothing was downloaded.',
      hint: "Take the message id and its attachment's blob id from read_message.",
    });
    await expect(checkDownloadedMessage('raw', 'M1', answering([email], true))).rejects.toMatchObject({
      code: 'policy_refused',
      message:
        "Message M1 is held back by your operator's receive rules: none of it is shown to you, its attachments included. Nothing was downloaded.",
    });
    await expect(checkDownloadedMessage('other', 'M1', answering([email]))).rejects.toMatchObject({
      code: 'attachment_invalid',
      message: 'Blob other is not part of message M1; nothing was downloaded.',
      hint: 'Use the download call read_message shows for the attachment: it names the message and the blob together.',
    });
  });
});
