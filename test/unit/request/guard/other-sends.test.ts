import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../../../src/gate/outgoing.js';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import type { OtherSend } from '../../../../src/request/guard/mail/batch-sends.js';
import { otherSendJudgements } from '../../../../src/request/guard/mail/other-sends.js';

/** Mail that leaves without an EmailSubmission: a vacation response, a read receipt, a Sieve script's redirects and replies. */

interface Server {
  vacation?: Record<string, unknown>;
  dispositionTo?: unknown;
  blobs?: Record<string, string>;
  reads: JmapRequest[];
}

function context(server: Server): CheckContext {
  return {
    session: async () => ({ accountId: 'acc-1' }),
    read: async (request: JmapRequest): Promise<JmapResponse> => {
      server.reads.push(request);
      const method = request.methodCalls[0]?.[0];
      const list =
        method === 'VacationResponse/get'
          ? server.vacation
            ? [server.vacation]
            : []
          : server.dispositionTo === undefined
            ? []
            : [{ 'header:Disposition-Notification-To:asRaw:all': server.dispositionTo }];
      return { methodResponses: [[String(method), { list }, 'x']] } as unknown as JmapResponse;
    },
    download: async (blobId: string) => Buffer.from(server.blobs?.[blobId] ?? ''),
  } as unknown as CheckContext;
}

const judge = (server: Server, method: string, args: Record<string, unknown>) =>
  otherSendJudgements({ callIndex: 0, method: method as OtherSend['method'], args }, context(server), new Map());

describe('a vacation response', () => {
  it('is an auto-reply to anyone once enabled, scanned with its texts, without a lookup when the change says all', async () => {
    const server: Server = { reads: [] };
    const [send, ...rest] = await judge(server, 'VacationResponse/set', {
      update: { singleton: { isEnabled: true, subject: 'Away', textBody: 'Back Monday', htmlBody: null } },
    });
    expect(rest).toEqual([]);
    expect(send).toMatchObject({
      kind: 'auto-reply',
      recipients: 'anyone',
      slots: 0,
      scanParts: [{ where: 'the vacation response', text: 'Away\nBack Monday' }],
    });
    expect(server.reads).toEqual([]);
  });

  it('takes what the change leaves as it was from the current response', async () => {
    const server: Server = { reads: [], vacation: { isEnabled: true, subject: 'Old subject', textBody: 'old text' } };
    const [send] = await judge(server, 'VacationResponse/set', { update: { singleton: { textBody: 'new text' } } });
    expect(send?.scanParts).toEqual([{ where: 'the vacation response', text: 'Old subject\nnew text' }]);
    expect(server.reads).toHaveLength(1);
    expect(
      await judge({ reads: [], vacation: { isEnabled: false } }, 'VacationResponse/set', {
        update: { singleton: { textBody: 'x' } },
      }),
    ).toEqual([]);
    expect(await judge({ reads: [] }, 'VacationResponse/set', { update: { singleton: { subject: 'x' } } })).toEqual([]);
  });

  it('reads the current texts when it is turned on without all of them, and scans them', async () => {
    const server: Server = {
      reads: [],
      vacation: { isEnabled: false, subject: 'Away', textBody: 'key amk_0123456789abcdefghij', htmlBody: null },
    };
    const [send] = await judge(server, 'VacationResponse/set', {
      update: { singleton: { isEnabled: true, subject: 'Out' } },
    });
    expect(send?.scanParts).toEqual([{ where: 'the vacation response', text: 'Out\nkey amk_0123456789abcdefghij' }]);
    expect(server.reads).toHaveLength(1);
  });

  it('sends nothing when it is turned off or nothing changes', async () => {
    const server: Server = { reads: [], vacation: { isEnabled: true } };
    expect(await judge(server, 'VacationResponse/set', { update: { singleton: { isEnabled: false } } })).toEqual([]);
    expect(await judge(server, 'VacationResponse/set', {})).toEqual([]);
    expect(await judge(server, 'VacationResponse/set', { update: 'x', create: { a: 'not a patch' } })).toEqual([]);
    expect(server.reads).toEqual([]);
  });

  it('judges a created response too', async () => {
    const sends = await judge({ reads: [] }, 'VacationResponse/set', {
      create: { v: { isEnabled: true, subject: 'S', textBody: 'T', htmlBody: 'H' } },
    });
    expect(sends.map((s) => s.kind)).toEqual(['auto-reply']);
  });
});

describe('a read receipt', () => {
  it('goes to the address the original mail asked for, counts one send, and is scanned', async () => {
    const server: Server = { reads: [], dispositionTo: [' Ada <ada@example.test>'] };
    const [send] = await judge(server, 'MDN/send', {
      send: { r1: { forEmailId: 'M1', subject: 'Read: x', textBody: 'seen', reportingUA: 'agent' } },
    });
    expect(send).toMatchObject({
      label: 'the read receipt r1',
      kind: 'read receipt',
      unreadable: [],
      slots: 1,
      scanParts: [{ where: 'the read receipt r1', text: 'Read: x\nseen\nagent' }],
    });
    expect(send?.recipients).toEqual([expect.objectContaining({ address: 'ada@example.test' })]);
    expect(server.reads[0]?.methodCalls[0]?.[1]).toEqual({
      accountId: 'acc-1',
      ids: ['M1'],
      properties: ['header:Disposition-Notification-To:asRaw:all'],
    });
  });

  it('names a receipt for a mail that is not an id of this inbox as unreadable, and one with no address as going nowhere', async () => {
    for (const forEmailId of ['#created', 42, undefined]) {
      const [send] = await judge({ reads: [] }, 'MDN/send', { send: { r: { forEmailId } } });
      expect(send?.unreadable, String(forEmailId)).toEqual(['its forEmailId is not an id of this inbox']);
    }
    const [nowhere] = await judge({ reads: [] }, 'MDN/send', { send: { r: { forEmailId: 'M1' } } });
    expect(nowhere).toMatchObject({ recipients: [], unreadable: [] });
    expect(await judge({ reads: [] }, 'MDN/send', { send: 'x' })).toEqual([]);
  });
});

describe('a Sieve script', () => {
  it('redirects to the addresses it names and, with vacation or reject, answers anyone', async () => {
    const script = 'require ["vacation"];\nredirect "boss@example.test";\nvacation "away";\n';
    const sends = await judge({ reads: [], blobs: { B1: script } }, 'SieveScript/set', {
      create: { s1: { blobId: 'B1' } },
    });
    expect(sends.map((s) => [s.label, s.kind])).toEqual([
      ['the Sieve script s1 (vacation: answers whoever writes)', 'auto-reply'],
      ['the Sieve script s1 (redirects)', 'sieve'],
    ]);
    expect(sends[1]?.recipients).toEqual([expect.objectContaining({ address: 'boss@example.test' })]);
    expect(sends[1]?.scanParts).toEqual([{ where: 'the Sieve script s1', text: script }]);
  });

  it('names a redirect that is no address and a content that is not a blob, and skips an update without content', async () => {
    const sends = await judge({ reads: [], blobs: { B1: 'redirect "not an address";' } }, 'SieveScript/set', {
      update: { s1: { blobId: 'B1' }, s2: { name: 'renamed' }, s3: { blobId: 7 } },
    });
    expect(sends.map((s) => [s.label, s.unreadable])).toEqual([
      ['the Sieve script s1 (redirects)', ['redirect to "not an address"']],
      ['the Sieve script s3', ['its content is not a blob']],
    ]);
  });

  it('refuses to guess arguments a result reference supplies', async () => {
    const [send] = await judge({ reads: [] }, 'SieveScript/set', {
      '#create': { resultOf: 'x', name: 'y', path: '/z' },
    });
    expect(send).toMatchObject({
      kind: 'other',
      unreadable: ['SieveScript/set takes its arguments from a result reference'],
      slots: 0,
    });
  });
});
