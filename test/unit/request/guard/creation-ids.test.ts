import { describe, expect, it } from 'vitest';
import type { Invocation } from '../../../../src/jmap/jmap-types.js';
import { creationIdProblems, creationMapKey } from '../../../../src/request/guard/mail/creation-ids.js';

/**
 * One creation-id namespace per batch (RFC 8620 §5.3): an id defined twice, by any two creating
 * methods, or defined while createdIds lists it, is a problem; so is any later `#` reference once
 * a creating call took its creation map from a result reference.
 */

const using = ['urn:ietf:params:jmap:core'];
const problems = (methodCalls: Invocation[], createdIds?: Record<string, string>) =>
  creationIdProblems({ using, methodCalls, ...(createdIds ? { createdIds } : {}) });
const mail = { mailboxIds: { D: true }, subject: 'x' };

describe('the creation ids of a batch', () => {
  it('passes a batch whose ids are all distinct, createdIds included', () => {
    expect(
      problems(
        [
          ['Blob/upload', { create: { u: { data: [{ 'data:asText': 'x' }] } } }, 'b'],
          ['Email/set', { create: { d: mail } }, 'e'],
          ['Email/import', { emails: { i: { blobId: '#u' } } }, 'i'],
          ['EmailSubmission/set', { create: { s: { emailId: '#d' } } }, 's'],
        ],
        { old: 'M1' },
      ),
    ).toEqual([]);
  });

  it('finds an id defined twice in two calls of one method, naming the id and both calls', () => {
    const found = problems([
      ['Email/set', { create: { d: { ...mail, subject: 'forbidden' } } }, 'e1'],
      ['Email/set', { create: { d: { subject: 'harmless, made to fail' } } }, 'e2'],
      ['EmailSubmission/set', { create: { s: { emailId: '#d' } } }, 's'],
    ]);
    expect(found).toEqual([
      'the creation id "d" is defined twice, by Email/set (call e1) and by Email/set (call e2); the server maps #d to whichever create succeeds last, which is known only after the request ran',
    ]);
  });

  for (const [first, second] of [
    [
      ['Email/import', { emails: { d: { blobId: 'B1' } } }, 'i'],
      ['Email/set', { create: { d: mail } }, 'e'],
    ],
    [
      ['Email/set', { create: { d: mail } }, 'e'],
      ['Email/copy', { create: { d: { id: 'M1' } } }, 'c'],
    ],
    [
      ['Blob/upload', { create: { d: { data: [] } } }, 'b'],
      ['Email/set', { create: { d: mail } }, 'e'],
    ],
    [
      ['EmailSubmission/set', { create: { d: { emailId: 'M1' } } }, 's'],
      ['Mailbox/set', { create: { d: { name: 'x' } } }, 'm'],
    ],
    [
      ['Identity/set', { create: { d: { email: 'a@b.test' } } }, 'id'],
      ['VacationResponse/set', { create: { d: {} } }, 'v'],
    ],
    [
      ['MDN/send', { send: { d: {} } }, 'mdn'],
      ['SieveScript/set', { create: { d: {} } }, 'sv'],
    ],
    [
      ['Email/set', { create: { d: mail } }, 'e'],
      ['Calendar/set', { create: { d: {} } }, 'cal'],
    ],
  ] as [Invocation, Invocation][]) {
    it(`finds one id defined by ${first[0]} and ${second[0]}`, () => {
      expect(problems([first, second])).toEqual([
        expect.stringContaining(
          `the creation id "d" is defined twice, by ${first[0]} (call ${first[2]}) and by ${second[0]} (call ${second[2]})`,
        ),
      ]);
    });
  }

  it('finds an id created in the batch that createdIds lists too', () => {
    expect(problems([['Email/set', { create: { old: mail } }, 'e']], { old: 'M1' })).toEqual([
      'the creation id "old" is created by Email/set (call e) and also listed in the request\'s createdIds, so #old may name either',
    ]);
  });

  it('finds any later reference once a creation map came from a result reference, and passes reads after it', () => {
    const hidden: Invocation = ['Email/set', { '#create': { resultOf: 'g', name: 'Email/get', path: '/list' } }, 'e'];
    expect(
      problems([hidden, ['Email/get', { '#ids': { resultOf: 'e', name: 'Email/set', path: '/created/*/id' } }, 'g2']]),
    ).toEqual([]);
    expect(problems([hidden, ['Mailbox/set', { create: { m: { name: 'x' } } }, 'm']])).toEqual([]);
    const found = problems([
      hidden,
      ['EmailSubmission/set', { create: { s: { emailId: '#d' } } }, 's'],
      ['Email/import', { emails: { i: { blobId: '#u' } } }, 'i'],
    ]);
    expect(found).toHaveLength(2);
    expect(found[0]).toBe(
      'EmailSubmission/set (call s) names a creation id or result, and Email/set (call e) takes what it creates from a result reference, so which record that names cannot be known before the request runs',
    );
    expect(
      problems([
        ['Blob/upload', { '#create': {} }, 'b'],
        ['Email/set', { create: { d: { ...mail, attachments: [{ blobId: '#u' }] } } }, 'e'],
      ]),
    ).toHaveLength(1);
    expect(
      problems([
        ['Email/import', { '#emails': {} }, 'i'],
        ['EmailSubmission/set', { create: { s: { '#emailId': {} } } }, 's'],
      ]),
    ).toHaveLength(1);
  });

  it('finds a reference among plain ids in a list, and none in numbers, flags or nulls, after a hidden creation map', () => {
    const hidden: Invocation = ['Email/set', { '#create': { resultOf: 'g', name: 'Email/get', path: '/list' } }, 'e'];
    expect(problems([hidden, ['Email/set', { destroy: ['M1', 'M2', '#d'] }, 'x']])).toHaveLength(1);
    expect(
      problems([
        hidden,
        ['Email/set', { destroy: ['M1'], update: { M1: { keywords: { $seen: true }, size: 3, x: null } } }, 'x'],
      ]),
    ).toEqual([]);
  });

  it('knows which argument holds the creation map of each creating method, and that others create nothing', () => {
    expect(
      ['Email/import', 'MDN/send', 'Blob/upload', 'Email/set', 'Email/copy', 'Foo/set'].map(creationMapKey),
    ).toEqual(['emails', 'send', 'create', 'create', 'create', 'create']);
    expect(['Email/get', 'Email/query', 'Blob/copy', 'Email/parse', 'Core/echo'].map(creationMapKey)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(
      problems([
        ['Blob/copy', { create: { d: {} } }, 'b'],
        ['Email/set', { create: { d: mail } }, 'e'],
      ]),
    ).toEqual([]);
  });
});
