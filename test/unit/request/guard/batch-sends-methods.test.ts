import { describe, expect, it } from 'vitest';
import { findBatchSends, hasResultReference } from '../../../../src/request/guard/mail/batch-sends.js';

/**
 * How the guard sorts each method of a batch: writes that send nothing by themselves, methods that
 * send another way (answers to whoever writes, read receipts, filters), and methods it does not know,
 * which a strict policy refuses; and exactly which mail each import, copy and submission would send,
 * or why it cannot be read before the batch runs.
 */

const using = ['urn:ietf:params:jmap:core'];
const one = (method: string, args: Record<string, unknown> = {}) =>
  findBatchSends({ using, methodCalls: [[method, { accountId: 'a', ...args }, 'c']] });

describe('a method of the batch', () => {
  it.each(['Email/set', 'Email/import', 'Email/copy', 'Mailbox/set', 'Blob/upload', 'Blob/copy'])(
    '%s is a write that sends nothing by itself',
    (method) => {
      const sends = one(method);
      expect(sends).toMatchObject({ writes: [method], unknown: [], others: [], submissions: [] });
    },
  );

  // Identity/set: an identity's Bcc copies every later mail sent with it, its Reply-To takes the answers.
  it.each(['VacationResponse/set', 'MDN/send', 'SieveScript/set', 'Identity/set'])(
    '%s sends another way, and is judged as such',
    (method) => {
      const sends = one(method, { update: {} });
      expect(sends.others).toEqual([{ callIndex: 0, method, args: { accountId: 'a', update: {} } }]);
      expect(sends.unknown).toEqual([]);
    },
  );

  it('that the guard does not know is listed as unknown', () => {
    expect(one('Calendar/set').unknown).toEqual(['Calendar/set']);
  });
});

describe('the mail a create would send', () => {
  const source = (method: string, args: Record<string, unknown>, id: string) => {
    const sends = findBatchSends({
      using,
      methodCalls: [
        [method, args, 'c'],
        ['EmailSubmission/set', { create: { s: { emailId: `#${id}` } } }, 's'],
      ],
    });
    return sends.submissions[0]?.source;
  };

  it("is an import's blob, or unreadable when the import names none or builds it from a reference", () => {
    expect(source('Email/import', { emails: { i: { blobId: 'B1', mailboxIds: {} } } }, 'i')).toEqual({
      kind: 'import',
      creationId: 'i',
      callIndex: 0,
      blobId: 'B1',
    });
    expect(source('Email/import', { emails: { i: { mailboxIds: {} } } }, 'i')).toEqual({
      kind: 'unreadable',
      why: 'Email/import i names no blobId',
    });
    expect(
      source('Email/import', { emails: { i: { '#blobId': { resultOf: 'u', name: 'Blob/upload', path: '/x' } } } }, 'i'),
    ).toEqual({ kind: 'unreadable', why: 'Email/import i is built from a result reference' });
    expect(source('Email/import', { emails: { i: 'not an object' } }, 'i')).toEqual({
      kind: 'unreadable',
      why: 'Email/import i is built from a result reference',
    });
  });

  it('is the copied mail on the server, or unreadable when the copy names no plain source id', () => {
    expect(source('Email/copy', { create: { k: { id: 'M7', mailboxIds: {} } } }, 'k')).toEqual({
      kind: 'server',
      emailId: 'M7',
    });
    expect(source('Email/copy', { create: { k: { id: '#d' } } }, 'k')).toEqual({
      kind: 'unreadable',
      why: 'Email/copy k has no plain source id',
    });
    expect(source('Email/copy', { create: { k: { id: 5 } } }, 'k')).toEqual({
      kind: 'unreadable',
      why: 'Email/copy k has no plain source id',
    });
  });

  it('is nothing known when the creates themselves come from a result reference', () => {
    expect(source('Email/set', { '#create': { resultOf: 'x', name: 'Foo/get', path: '/list' } }, 'd')).toEqual({
      kind: 'unreadable',
      why: '#d is created nowhere before the submission',
    });
  });

  it('is unreadable when a copied mail is changed by the same batch before it is sent', () => {
    const sends = findBatchSends({
      using,
      methodCalls: [
        ['Email/copy', { create: { k: { id: 'M7' } } }, 'c'],
        ['Email/set', { update: { M7: { subject: 'changed' } } }, 'u'],
        ['EmailSubmission/set', { create: { s: { emailId: '#k' } } }, 's'],
      ],
    });
    expect(sends.submissions[0]?.source).toEqual({
      kind: 'unreadable',
      why: 'the same request changes the content of #k before sending it',
    });
  });

  it('stays readable when the batch only moves it or changes its keywords', () => {
    const sends = findBatchSends({
      using,
      methodCalls: [
        [
          'Email/set',
          { update: { M7: { 'keywords/$seen': true, mailboxIds: { x: true }, 'mailboxIds/y': true } } },
          'u',
        ],
        ['EmailSubmission/set', { create: { s: { emailId: 'M7' } } }, 's'],
      ],
    });
    expect(sends.submissions[0]?.source).toEqual({ kind: 'server', emailId: 'M7' });
    const renamed = findBatchSends({
      using,
      methodCalls: [
        ['Email/set', { update: { M7: { keywordsX: true } } }, 'u'],
        ['EmailSubmission/set', { create: { s: { emailId: 'M7' } } }, 's'],
      ],
    });
    expect(renamed.submissions[0]?.source.kind).toBe('unreadable');
  });
});

describe('a submission', () => {
  it('carries its identity when it names one, and no identity key otherwise', () => {
    const sends = findBatchSends({
      using,
      methodCalls: [
        [
          'EmailSubmission/set',
          { accountId: 'a', create: { s: { emailId: 'M1', identityId: 'I1' }, t: { emailId: 'M1', identityId: 3 } } },
          's',
        ],
      ],
    });
    expect(sends.submissions[0]).toEqual({
      callIndex: 0,
      callId: 's',
      creationId: 's',
      accountId: 'a',
      emailId: 'M1',
      envelope: undefined,
      identityId: 'I1',
      source: { kind: 'server', emailId: 'M1' },
    });
    expect(sends.submissions[1]).not.toHaveProperty('identityId');
  });

  it('whose creates come from a reference is one unreadable send for the whole call, named by the reference', () => {
    for (const [args, reference] of [
      [{ '#create': { resultOf: 'x', name: 'Foo/get', path: '/a' } }, '#create'],
      [
        { create: { s: { emailId: 'M1' } }, '#accountId': { resultOf: 'x', name: 'Foo/get', path: '/a' } },
        '#accountId',
      ],
    ] as const) {
      const sends = findBatchSends({ using, methodCalls: [['EmailSubmission/set', args, 's9']] });
      expect(sends.submissions).toEqual([
        {
          callIndex: 0,
          callId: 's9',
          creationId: '*',
          accountId: undefined,
          emailId: undefined,
          envelope: undefined,
          source: {
            kind: 'unreadable',
            why: `EmailSubmission/set (call s9) takes ${reference} from a result reference`,
          },
        },
      ]);
    }
  });

  it('whose follow-up update comes from a reference is still judged on its own mail', () => {
    const sends = findBatchSends({
      using,
      methodCalls: [
        [
          'EmailSubmission/set',
          {
            create: { s: { emailId: 'M1' } },
            '#onSuccessUpdateEmail': { resultOf: 'x', name: 'Foo/get', path: '/a' },
            '#onSuccessDestroyEmail': { resultOf: 'x', name: 'Foo/get', path: '/b' },
          },
          's',
        ],
      ],
    });
    expect(sends.submissions.map((s) => s.source)).toEqual([{ kind: 'server', emailId: 'M1' }]);
  });

  it('built from a reference itself, or not an object, is unreadable on its own', () => {
    const sends = findBatchSends({
      using,
      methodCalls: [
        [
          'EmailSubmission/set',
          { create: { s: { '#emailId': { resultOf: 'x', name: 'Foo/get', path: '/a' } }, t: 7, u: { emailId: 'M2' } } },
          'c',
        ],
      ],
    });
    expect(sends.submissions.map((s) => [s.creationId, s.source])).toEqual([
      ['s', { kind: 'unreadable', why: 'submission s is built from a result reference' }],
      ['t', { kind: 'unreadable', why: 'submission t is built from a result reference' }],
      ['u', { kind: 'server', emailId: 'M2' }],
    ]);
  });
});

describe('a result reference', () => {
  it('is found in any element of a list, however deep', () => {
    expect(hasResultReference([{ a: 1 }, [{ b: { '#c': {} } }]])).toBe(true);
    expect(hasResultReference([{ a: 1 }, [{ b: { c: '#not-a-key' } }]])).toBe(false);
  });
});
