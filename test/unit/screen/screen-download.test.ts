import { describe, expect, it } from 'vitest';
import type { JmapResponse } from '../../../src/jmap/jmap-types.js';
import { checkDownloadedMessage, type DownloadCheckDeps } from '../../../src/screen/screen-download.js';

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
