import { describe, expect, it } from 'vitest';
import { findBatchSends } from '../../../../src/request/guard/mail/batch-sends.js';
import { holdSubmissions, heldEmailId } from '../../../../src/request/guard/hold-batch.js';

const using = ['urn:ietf:params:jmap:core'];

describe('the sends of a batch', () => {
  it('passes reads and quiet writes, and resolves each submission to the mail it sends, in batch order', () => {
    const sends = findBatchSends({
      using,
      createdIds: { old: 'M-earlier' },
      methodCalls: [
        ['Email/get', { ids: ['x'] }, 'g'],
        ['Email/set', { create: { d: { subject: 'first' } } }, 'e1'],
        [
          'EmailSubmission/set',
          {
            create: {
              s1: { emailId: '#d' },
              s2: { emailId: 'M-server' },
              s3: { emailId: '#old' },
              s4: { emailId: '#later' },
            },
          },
          's1',
        ],
        ['Email/set', { create: { d: { subject: 'second' }, later: { subject: 'x' } } }, 'e2'],
        ['Email/import', { emails: { i: { blobId: 'B1' } } }, 'i'],
        ['EmailSubmission/set', { create: { s5: { emailId: '#d' }, s6: { emailId: '#i' } } }, 's2'],
        ['Mailbox/set', { create: {} }, 'm'],
      ],
    });
    expect(sends.writes).toEqual([
      'Email/set',
      'EmailSubmission/set',
      'Email/set',
      'Email/import',
      'EmailSubmission/set',
      'Mailbox/set',
    ]);
    expect(sends.unknown).toEqual([]);
    const sources = Object.fromEntries(sends.submissions.map((s) => [s.creationId, s.source]));
    expect(sources.s1).toMatchObject({ kind: 'create', create: { subject: 'first' } });
    expect(sources.s2).toEqual({ kind: 'server', emailId: 'M-server' });
    expect(sources.s3).toEqual({ kind: 'server', emailId: 'M-earlier' });
    expect(sources.s4).toMatchObject({ kind: 'unreadable' });
    expect(sources.s5).toMatchObject({ kind: 'create', create: { subject: 'second' } });
    expect(sources.s6).toMatchObject({ kind: 'import', blobId: 'B1' });
  });

  it('marks result references in what decides a send as unreadable, and lists unknown methods', () => {
    const sends = findBatchSends({
      using,
      methodCalls: [
        ['Email/set', { '#create': { resultOf: 'x', name: 'Email/get', path: '/list' } }, 'e'],
        ['EmailSubmission/set', { create: { s: { emailId: '#d' } } }, 's'],
        ['EmailSubmission/set', { '#create': { resultOf: 'e', name: 'Email/set', path: '/created' } }, 's2'],
        [
          'EmailSubmission/set',
          { create: { s: { '#emailId': { resultOf: 'e', name: 'Email/set', path: '/created/d/id' } } } },
          's3',
        ],
        ['PushSubscription/set', { create: {} }, 'p'],
        ['VacationResponse/set', { update: { singleton: { isEnabled: true } } }, 'v'],
      ],
    });
    expect(sends.submissions.map((s) => s.source.kind)).toEqual(['unreadable', 'unreadable', 'unreadable']);
    expect(sends.unknown).toEqual(['PushSubscription/set']);
    expect(sends.others.map((o) => o.method)).toEqual(['VacationResponse/set']);
  });
});

describe('holding a batch', () => {
  it('drops the held submission and its onSuccess update, and makes its mail a draft in Drafts', () => {
    const request = {
      using,
      methodCalls: [
        [
          'Email/set',
          { accountId: 'A', create: { d: { mailboxIds: { SENT: true }, keywords: { $seen: true }, subject: 'x' } } },
          'e',
        ],
        [
          'EmailSubmission/set',
          {
            accountId: 'A',
            create: { s: { emailId: '#d' } },
            onSuccessUpdateEmail: { '#s': { 'mailboxIds/SENT': true } },
          },
          'sub',
        ],
        ['EmailSubmission/set', { accountId: 'A', create: { t: { emailId: 'M9' } } }, 'sub2'],
      ] as [string, Record<string, unknown>, string][],
    };
    const sends = findBatchSends(request);
    const held = holdSubmissions(request, sends.submissions, { accountId: 'A', draftsId: 'DRAFTS' });
    expect(held.methodCalls).toEqual([
      [
        'Email/set',
        {
          accountId: 'A',
          create: { d: { mailboxIds: { DRAFTS: true }, keywords: { $seen: true, $draft: true }, subject: 'x' } },
        },
        'e',
      ],
      [
        'Email/set',
        { accountId: 'A', update: { M9: { 'keywords/$draft': true, 'mailboxIds/DRAFTS': true } } },
        'guard-hold',
      ],
    ]);
    expect(request.methodCalls[1]?.[1].create).toEqual({ s: { emailId: '#d' } });
    const response = {
      methodResponses: [['Email/set', { created: { d: { id: 'M1' } } }, 'e']] as [
        string,
        Record<string, unknown>,
        string,
      ][],
    };
    expect(sends.submissions.map((s) => heldEmailId(s, request, response))).toEqual(['M1', 'M9']);
  });
});

describe('content changed before it is sent', () => {
  it("calls a submission unreadable when the same batch updates more than the mail's keywords or mailboxes", () => {
    const sends = findBatchSends({
      using,
      methodCalls: [
        [
          'Email/set',
          {
            update: { M1: { 'header:Bcc': ' eve@evil.test' }, M2: { 'keywords/$seen': true, mailboxIds: { X: true } } },
          },
          'u',
        ],
        ['EmailSubmission/set', { create: { a: { emailId: 'M1' }, b: { emailId: 'M2' } } }, 's'],
      ],
    });
    expect(sends.submissions.map((s) => s.source.kind)).toEqual(['unreadable', 'server']);
  });
});

describe('what the guard cannot read before a batch runs', () => {
  const submitting = (before: [string, Record<string, unknown>, string][], submission: Record<string, unknown>) =>
    findBatchSends({
      using,
      methodCalls: [...before, ['EmailSubmission/set', { accountId: 'A', create: { s: submission } }, 'sub']],
    }).submissions.map((s) => s.source);

  it('calls a submission unreadable when an update from a result reference could change its mail, or one of a property beyond keywords and mailboxes', () => {
    expect(
      submitting([['Email/set', { '#update': { resultOf: 'q', name: 'Email/query', path: '/ids' } }, 'e']], {
        emailId: 'M1',
      }),
    ).toEqual([{ kind: 'unreadable', why: 'the same request changes the content of M1 before sending it' }]);
    for (const key of ['keywordsExtra', 'mailboxIdsAndMore/x', 'subject']) {
      expect(
        submitting([['Email/set', { update: { M1: { [key]: true } } }, 'e']], { emailId: 'M1' })[0]?.kind,
        key,
      ).toBe('unreadable');
    }
    expect(
      submitting([['Email/set', { update: { M1: { 'keywords/$seen': true, mailboxIds: { x: true } } } }, 'e']], {
        emailId: 'M1',
      }),
    ).toEqual([{ kind: 'server', emailId: 'M1' }]);
  });

  it('judges a submission whose follow-up updates come from result references like any other', () => {
    const sends = findBatchSends({
      using,
      methodCalls: [
        [
          'EmailSubmission/set',
          {
            accountId: 'A',
            create: { s: { emailId: 'M1' } },
            '#onSuccessUpdateEmail': { resultOf: 'x', name: 'y', path: '/z' },
            '#onSuccessDestroyEmail': { resultOf: 'x', name: 'y', path: '/z' },
          },
          'sub',
        ],
      ],
    });
    expect(sends.submissions.map((s) => s.source)).toEqual([{ kind: 'server', emailId: 'M1' }]);
  });

  it('calls unreadable a copy of a mail created in the same batch, and a submission naming an empty emailId', () => {
    expect(submitting([['Email/copy', { create: { c: { id: '#d' } } }, 'cp']], { emailId: '#c' })).toEqual([
      { kind: 'unreadable', why: 'Email/copy c has no plain source id' },
    ]);
    expect(submitting([], { emailId: '' })).toEqual([{ kind: 'unreadable', why: 'the submission names no emailId' }]);
  });
});
