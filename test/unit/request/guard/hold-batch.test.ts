import { describe, expect, it } from 'vitest';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import type { PlannedSubmission } from '../../../../src/request/guard/mail/batch-sends.js';
import { heldEmailId, holdSubmissions } from '../../../../src/request/guard/hold-batch.js';

/** Holding mail for the operator: the batch loses the held submissions and their follow-ups, and the mail stays as a draft. */

const using = ['urn:ietf:params:jmap:core'];

function submission(creationId: string, source: PlannedSubmission['source'], callIndex = 1): PlannedSubmission {
  return {
    callIndex,
    callId: `c${callIndex}`,
    creationId,
    accountId: 'acc',
    emailId: '#d',
    envelope: undefined,
    source,
  };
}

describe('holdSubmissions', () => {
  it('drops a held submission with its onSuccess follow-ups, keeps the others, and makes its mail a draft in Drafts', () => {
    const request: JmapRequest = {
      using,
      methodCalls: [
        [
          'Email/set',
          {
            accountId: 'acc',
            create: {
              d1: { subject: 'held', keywords: { $seen: true }, mailboxIds: { sent: true } },
              d2: { subject: 'going' },
            },
          },
          'c0',
        ],
        [
          'EmailSubmission/set',
          {
            accountId: 'acc',
            create: { s1: { emailId: '#d1' }, s2: { emailId: '#d2' } },
            onSuccessUpdateEmail: { '#s1': { 'keywords/$draft': null }, '#s2': { 'keywords/$draft': null } },
            onSuccessDestroyEmail: ['#s1', '#s2'],
          },
          'c1',
        ],
      ],
    };
    const before = structuredClone(request);
    const held = holdSubmissions(
      request,
      [submission('s1', { kind: 'create', creationId: 'd1', callIndex: 0, create: {} })],
      { accountId: 'acc', draftsId: 'drafts' },
    );
    expect(held.methodCalls).toEqual([
      [
        'Email/set',
        {
          accountId: 'acc',
          create: {
            d1: { subject: 'held', keywords: { $seen: true, $draft: true }, mailboxIds: { drafts: true } },
            d2: { subject: 'going' },
          },
        },
        'c0',
      ],
      [
        'EmailSubmission/set',
        {
          accountId: 'acc',
          create: { s2: { emailId: '#d2' } },
          onSuccessUpdateEmail: { '#s2': { 'keywords/$draft': null } },
          onSuccessDestroyEmail: ['#s2'],
        },
        'c1',
      ],
    ]);
    expect(request).toEqual(before);
  });

  it('drops a submission call left empty, but not one that still updates or destroys', () => {
    const source = { kind: 'create', creationId: 'd1', callIndex: 0, create: {} } as const;
    const request = (extra: Record<string, unknown>): JmapRequest => ({
      using,
      methodCalls: [
        ['Email/set', { create: { d1: { subject: 'x' } } }, 'c0'],
        ['EmailSubmission/set', { create: { s1: {} }, ...extra }, 'c1'],
      ],
    });
    expect(
      holdSubmissions(request({}), [submission('s1', source)], {
        accountId: 'acc',
        draftsId: undefined,
      }).methodCalls.map(([m]) => m),
    ).toEqual(['Email/set']);
    for (const extra of [{ update: { x: {} } }, { destroy: ['y'] }]) {
      expect(
        holdSubmissions(request(extra), [submission('s1', source)], {
          accountId: 'acc',
          draftsId: undefined,
        }).methodCalls.map(([m]) => m),
      ).toEqual(['Email/set', 'EmailSubmission/set']);
    }
    // Without a Drafts mailbox the mail keeps its mailboxes and gets $draft.
    expect(
      holdSubmissions(request({}), [submission('s1', source)], { accountId: 'acc', draftsId: undefined })
        .methodCalls[0]?.[1],
    ).toEqual({ create: { d1: { subject: 'x', keywords: { $draft: true } } } });
  });

  it('makes an imported mail a draft, and marks mail already on the server as a draft in one added call', () => {
    const request: JmapRequest = {
      using,
      methodCalls: [
        ['Email/import', { emails: { i1: { blobId: 'B', mailboxIds: { inbox: true } } } }, 'c0'],
        ['EmailSubmission/set', { create: { s1: { emailId: '#i1' }, s2: { emailId: 'M2' } } }, 'c1'],
      ],
    };
    const held = holdSubmissions(
      request,
      [
        submission('s1', { kind: 'import', creationId: 'i1', callIndex: 0, blobId: 'B' }),
        submission('s2', { kind: 'server', emailId: 'M2' }),
      ],
      { accountId: 'acc', draftsId: 'drafts' },
    );
    expect(held.methodCalls).toEqual([
      [
        'Email/import',
        { emails: { i1: { blobId: 'B', mailboxIds: { drafts: true }, keywords: { $draft: true } } } },
        'c0',
      ],
      [
        'Email/set',
        { accountId: 'acc', update: { M2: { 'keywords/$draft': true, 'mailboxIds/drafts': true } } },
        'guard-hold',
      ],
    ]);
    const noDrafts = holdSubmissions(request, [submission('s2', { kind: 'server', emailId: 'M2' })], {
      accountId: 'acc',
      draftsId: undefined,
    });
    expect(noDrafts.methodCalls.at(-1)).toEqual([
      'Email/set',
      { accountId: 'acc', update: { M2: { 'keywords/$draft': true } } },
      'guard-hold',
    ]);
  });

  it('ignores a submission whose call is not in the batch', () => {
    const request: JmapRequest = { using, methodCalls: [['Email/set', {}, 'c0']] };
    expect(
      holdSubmissions(request, [submission('s9', { kind: 'unreadable', why: 'x' }, 5)], {
        accountId: 'acc',
        draftsId: 'd',
      }),
    ).toEqual(request);
  });
});

describe('heldEmailId', () => {
  const request: JmapRequest = {
    using,
    methodCalls: [
      ['Email/set', {}, 'c0'],
      ['Email/import', {}, 'c1'],
    ],
  };
  const response = (responses: unknown[]): JmapResponse =>
    ({ methodResponses: responses, sessionState: 's' }) as JmapResponse;

  it('is the id the server gave the created or imported mail, or the mail already on the server', () => {
    expect(
      heldEmailId(
        submission('s', { kind: 'create', creationId: 'd1', callIndex: 0, create: {} }),
        request,
        response([['Email/set', { created: { d1: { id: 'M1' } } }, 'c0']]),
      ),
    ).toBe('M1');
    expect(
      heldEmailId(
        submission('s', { kind: 'import', creationId: 'i1', callIndex: 1, blobId: 'B' }),
        request,
        response([['Email/import', { created: { i1: { id: 'M3' } } }, 'c1']]),
      ),
    ).toBe('M3');
    expect(heldEmailId(submission('s', { kind: 'server', emailId: 'M2' }), request, response([]))).toBe('M2');
  });

  it('is nothing when the mail was not created, or the answer belongs to another call or method', () => {
    const create = submission('s', { kind: 'create', creationId: 'd1', callIndex: 0, create: {} });
    expect(heldEmailId(create, request, response([['Email/set', { notCreated: { d1: {} } }, 'c0']]))).toBeUndefined();
    expect(
      heldEmailId(create, request, response([['Email/set', { created: { d1: { id: 'M1' } } }, 'c1']])),
    ).toBeUndefined();
    expect(
      heldEmailId(create, request, response([['Email/import', { created: { d1: { id: 'M1' } } }, 'c0']])),
    ).toBeUndefined();
    expect(
      heldEmailId(create, request, response([['Email/set', { created: { d1: { id: 7 } } }, 'c0']])),
    ).toBeUndefined();
    expect(heldEmailId(submission('s', { kind: 'unreadable', why: 'x' }), request, response([]))).toBeUndefined();
  });
});
