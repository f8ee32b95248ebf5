import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../../../src/gate/outgoing.js';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import type { OtherSend } from '../../../../src/request/guard/mail/batch-sends.js';
import { otherSendJudgements } from '../../../../src/request/guard/mail/other-sends.js';

/**
 * The sends that leave without an EmailSubmission, at their edges: an identity whose Bcc or
 * Reply-To an agent points elsewhere, several changes of one call that disagree, a server whose
 * answer to the guard's own lookup is missing or malformed, and exactly what each judgement says.
 */

interface Server {
  /** The answer to the guard's lookup, by the method it asks for. */
  answers?: Record<string, unknown[]>;
  blobs?: Record<string, string>;
  reads: JmapRequest[];
}

function context(server: Server): CheckContext {
  return {
    session: async () => ({ accountId: 'acc-1' }),
    read: async (request: JmapRequest): Promise<JmapResponse> => {
      server.reads.push(request);
      const method = String(request.methodCalls[0]?.[0]);
      return { methodResponses: server.answers?.[method] ?? [] } as unknown as JmapResponse;
    },
    download: async (blobId: string) => Buffer.from(server.blobs?.[blobId] ?? ''),
  } as unknown as CheckContext;
}

const judge = (server: Server, method: string, args: Record<string, unknown>) =>
  otherSendJudgements({ callIndex: 0, method: method as OtherSend['method'], args }, context(server), new Map());

const addresses = (recipients: unknown) =>
  Array.isArray(recipients) ? recipients.map((r: { address: string }) => r.address) : recipients;

const identityLabel = (id: string) =>
  `the identity ${id}'s Bcc and Reply-To (a copy of every mail sent with it, the answers to it)`;

describe("an identity's Bcc and Reply-To", () => {
  it('is a send to every address they name, created or updated', async () => {
    const sends = await judge({ reads: [] }, 'Identity/set', {
      create: { i1: { email: 'ada@agent-mailbox.test', bcc: [{ email: 'Eve@Evil.test' }] } },
      update: { I2: { replyTo: [{ name: 'Mallory', email: 'mallory@evil.test' }, { email: 'eve@evil.test' }] } },
    });
    expect(sends.map((s) => ({ ...s, recipients: addresses(s.recipients) }))).toEqual([
      {
        label: identityLabel('i1'),
        kind: 'other',
        recipients: ['eve@evil.test'],
        unreadable: [],
        scanParts: [],
        slots: 0,
      },
      {
        label: identityLabel('I2'),
        kind: 'other',
        recipients: ['mallory@evil.test', 'eve@evil.test'],
        unreadable: [],
        scanParts: [],
        slots: 0,
      },
    ]);
  });

  it('judges Bcc and Reply-To together on one identity', async () => {
    const [send, ...rest] = await judge({ reads: [] }, 'Identity/set', {
      update: { I1: { bcc: [{ email: 'a@evil.test' }], replyTo: [{ email: 'b@evil.test' }] } },
    });
    expect(rest).toEqual([]);
    expect(addresses(send?.recipients)).toEqual(['a@evil.test', 'b@evil.test']);
  });

  it('calls unreadable a Bcc or Reply-To that is not a list, or an entry that is no address, and still judges the rest', async () => {
    const [send] = await judge({ reads: [] }, 'Identity/set', {
      update: {
        I1: {
          bcc: 'eve@evil.test',
          replyTo: [{ email: 'ok@example.test' }, { email: 'not an address' }, { name: 'no email' }, 'eve@evil.test'],
        },
      },
    });
    expect(send?.label).toBe(identityLabel('I1'));
    expect(addresses(send?.recipients)).toEqual(['ok@example.test']);
    expect(send?.unreadable).toEqual([
      "the identity's bcc is not a list of addresses",
      "an address of the identity's replyTo cannot be read",
      "an address of the identity's replyTo cannot be read",
      "an address of the identity's replyTo cannot be read",
    ]);
    const [only] = await judge({ reads: [] }, 'Identity/set', { update: { I1: { replyTo: {} } } });
    expect(only).toMatchObject({ recipients: [], unreadable: ["the identity's replyTo is not a list of addresses"] });
  });

  it('is no send when the change clears them, leaves them out, or is no object', async () => {
    expect(
      await judge({ reads: [] }, 'Identity/set', {
        create: { i: { email: 'ada@agent-mailbox.test', name: 'Ada' } },
        update: {
          I1: { bcc: null, replyTo: null },
          I2: { bcc: [], replyTo: [] },
          I3: 'x',
          I4: { name: 'renamed' },
          I5: null,
        },
      }),
    ).toEqual([]);
    expect(await judge({ reads: [] }, 'Identity/set', { update: 'x', create: ['x'] })).toEqual([]);
  });
});

describe('a call whose arguments come from a result reference', () => {
  it('is one unreadable send named by its method, to no one, with nothing to scan', async () => {
    for (const method of ['VacationResponse/set', 'MDN/send', 'Identity/set', 'SieveScript/set']) {
      const server: Server = { reads: [] };
      expect(
        await judge(server, method, { update: { x: { '#bcc': { resultOf: 'g', name: 'Foo/get', path: '/a' } } } }),
      ).toEqual([
        {
          label: method,
          kind: 'other',
          recipients: [],
          unreadable: [`${method} takes its arguments from a result reference`],
          scanParts: [],
          slots: 0,
        },
      ]);
      expect(server.reads).toEqual([]);
    }
  });
});

describe('a vacation response changed several ways in one call', () => {
  const answer = (current: Record<string, unknown>) => ({
    'VacationResponse/get': [['VacationResponse/get', { list: [current] }, 'v']],
  });

  it('is judged when one change turns it off and another turns it on', async () => {
    const sends = await judge({ reads: [] }, 'VacationResponse/set', {
      create: { a: { isEnabled: false } },
      update: { singleton: { isEnabled: true, subject: 'S', textBody: 'T', htmlBody: null } },
    });
    expect(sends).toEqual([
      {
        label: 'the vacation response (an automatic reply to whoever writes)',
        kind: 'auto-reply',
        recipients: 'anyone',
        unreadable: [],
        scanParts: [{ where: 'the vacation response', text: 'S\nT' }],
        slots: 0,
      },
    ]);
  });

  it('asks the server for the current response, as JMAP names it, when any change leaves a text as it is', async () => {
    const server: Server = {
      reads: [],
      answers: answer({ isEnabled: false, subject: 'old', textBody: 'old body', htmlBody: 'old html' }),
    };
    const sends = await judge(server, 'VacationResponse/set', {
      create: { a: { isEnabled: true, subject: 'A', textBody: 'a', htmlBody: 'h' } },
      update: { singleton: { isEnabled: true, subject: 'B', textBody: 'b' } },
    });
    expect(sends.map((s) => s.scanParts[0]?.text)).toEqual(['B\nb\nold html', 'A\na\nh']);
    expect(server.reads).toEqual([
      {
        using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:vacationresponse'],
        methodCalls: [['VacationResponse/get', { accountId: 'acc-1', ids: null }, 'v']],
      },
    ]);
  });

  it('takes any text a change turning it on leaves out from the current response', async () => {
    for (const [patch, text] of [
      [{ textBody: 'n', htmlBody: 'n' }, 'old\nn\nn'],
      [{ subject: 'n', htmlBody: 'n' }, 'n\nold\nn'],
      [{ subject: 'n', textBody: 'n' }, 'n\nn\nold'],
    ] as const) {
      const server: Server = {
        reads: [],
        answers: answer({ isEnabled: false, subject: 'old', textBody: 'old', htmlBody: 'old' }),
      };
      const [send] = await judge(server, 'VacationResponse/set', {
        update: { singleton: { isEnabled: true, ...patch } },
      });
      expect(server.reads, JSON.stringify(patch)).toHaveLength(1);
      expect(send?.scanParts[0]?.text, JSON.stringify(patch)).toBe(text);
    }
  });

  it('trusts no current response from an answer that is missing or malformed', async () => {
    for (const answers of [
      {},
      { 'VacationResponse/get': [['VacationResponse/get', { list: null }, 'v']] },
      { 'VacationResponse/get': [['VacationResponse/get', { list: { 0: { isEnabled: true } } }, 'v']] },
      { 'VacationResponse/get': [['VacationResponse/get', { list: ['enabled'] }, 'v']] },
    ] as Record<string, unknown[]>[]) {
      const server: Server = { reads: [], answers };
      expect(
        await judge(server, 'VacationResponse/set', { update: { singleton: { subject: 'x' } } }),
        JSON.stringify(answers),
      ).toEqual([]);
      const [send] = await judge(server, 'VacationResponse/set', { update: { singleton: { isEnabled: true } } });
      expect(send?.scanParts, JSON.stringify(answers)).toEqual([{ where: 'the vacation response', text: '' }]);
    }
  });
});

describe('a read receipt, exactly', () => {
  it('asks the server for the address the original asked receipts to go to', async () => {
    const server: Server = {
      reads: [],
      answers: {
        'Email/get': [
          [
            'Email/get',
            { list: [{ 'header:Disposition-Notification-To:asRaw:all': [' a@x.test', ' b@x.test'] }] },
            'm',
          ],
        ],
      },
    };
    const [send] = await judge(server, 'MDN/send', { send: { r: { forEmailId: 'M1' } } });
    expect(addresses(send?.recipients)).toEqual(['a@x.test', 'b@x.test']);
    expect(server.reads).toEqual([
      {
        using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
        methodCalls: [
          [
            'Email/get',
            { accountId: 'acc-1', ids: ['M1'], properties: ['header:Disposition-Notification-To:asRaw:all'] },
            'm',
          ],
        ],
      },
    ]);
  });

  it('goes nowhere when the server has no answer for the original', async () => {
    const [send] = await judge({ reads: [] }, 'MDN/send', { send: { r: { forEmailId: 'M1' } } });
    expect(send).toMatchObject({ kind: 'read receipt', recipients: [], unreadable: [], slots: 1 });
  });

  it('for a mail that is not an id of this inbox is unreadable, to no one, with nothing to scan', async () => {
    const server: Server = { reads: [] };
    expect(await judge(server, 'MDN/send', { send: { r: 'not an object' } })).toEqual([
      {
        label: 'the read receipt r',
        kind: 'read receipt',
        recipients: [],
        unreadable: ['its forEmailId is not an id of this inbox'],
        scanParts: [],
        slots: 1,
      },
    ]);
    expect(server.reads).toEqual([]);
  });
});

describe('a Sieve script, exactly', () => {
  it('whose content is not a blob is unreadable, to no one, with nothing to scan', async () => {
    expect(await judge({ reads: [] }, 'SieveScript/set', { create: { s: { blobId: null } } })).toEqual([
      {
        label: 'the Sieve script s',
        kind: 'sieve',
        recipients: [],
        unreadable: ['its content is not a blob'],
        scanParts: [],
        slots: 0,
      },
    ]);
  });

  it('that answers whoever writes several ways names each, and sends to anyone', async () => {
    const script = 'require ["vacation", "reject"];\nif true { vacation "away"; } else { reject "no"; }\n';
    const sends = await judge({ reads: [], blobs: { B: script } }, 'SieveScript/set', {
      update: { S1: { blobId: 'B' } },
    });
    expect(sends).toEqual([
      {
        label: 'the Sieve script S1 (vacation, reject: answers whoever writes)',
        kind: 'auto-reply',
        recipients: 'anyone',
        unreadable: [],
        scanParts: [{ where: 'the Sieve script S1', text: script }],
        slots: 0,
      },
      {
        label: 'the Sieve script S1 (redirects)',
        kind: 'sieve',
        recipients: [],
        unreadable: [],
        scanParts: [{ where: 'the Sieve script S1', text: script }],
        slots: 0,
      },
    ]);
  });

  it('that the reader cannot follow is unreadable, and a redirect that is no address names no recipient', async () => {
    const [included] = await judge(
      { reads: [], blobs: { B: 'require "include"; include "other";' } },
      'SieveScript/set',
      {
        create: { s: { blobId: 'B' } },
      },
    );
    expect(included).toMatchObject({ recipients: [], unreadable: ['it includes another script'] });
    const [bad] = await judge({ reads: [], blobs: { B: 'redirect "nobody";' } }, 'SieveScript/set', {
      create: { s: { blobId: 'B' } },
    });
    expect(bad).toMatchObject({ recipients: [], unreadable: ['redirect to "nobody"'] });
    const [good] = await judge(
      { reads: [], blobs: { B: 'redirect "a@x.test"; redirect "b@x.test";' } },
      'SieveScript/set',
      {
        create: { s: { blobId: 'B' } },
      },
    );
    expect(good?.unreadable).toEqual([]);
    expect(addresses(good?.recipients)).toEqual(['a@x.test', 'b@x.test']);
  });
});
