import { describe, expect, it } from 'vitest';
import type { Invocation } from '../../../../src/jmap/jmap-types.js';
import { findBatchSends } from '../../../../src/request/guard/mail/batch-sends.js';

/**
 * Result references and creation-id references in what decides a send: each is resolved to the
 * mail it names or marks the send unreadable (refused in every mode), never guessed.
 */

const using = ['urn:ietf:params:jmap:core'];
const draft: Invocation = ['Email/set', { create: { d: { subject: 'x' } } }, 'e'];
const sourceOf = (
  submission: Record<string, unknown>,
  before: Invocation[] = [draft],
  top: Record<string, unknown> = {},
) =>
  findBatchSends({
    using,
    methodCalls: [...before, ['EmailSubmission/set', { ...top, create: { s: submission } }, 's']],
  }).submissions[0]?.source;

describe('references in a submission', () => {
  it('resolves #emailId to the create of the batch', () => {
    expect(sourceOf({ emailId: '#d', identityId: 'I1' })).toMatchObject({ kind: 'create', creationId: 'd' });
  });

  it('marks an envelope, an identity or an email taken from a result reference unreadable', () => {
    for (const submission of [
      { emailId: '#d', '#envelope': { resultOf: 'e', name: 'Email/set', path: '/x' } },
      {
        emailId: '#d',
        envelope: { mailFrom: { email: 'a@x.test' }, '#rcptTo': { resultOf: 'e', name: 'Email/set', path: '/x' } },
      },
      { emailId: '#d', '#identityId': { resultOf: 'e', name: 'Identity/get', path: '/list/0/id' } },
      { '#emailId': { resultOf: 'e', name: 'Email/set', path: '/created/d/id' } },
    ]) {
      expect(sourceOf(submission), JSON.stringify(submission)).toMatchObject({
        kind: 'unreadable',
        why: 'submission s is built from a result reference',
      });
    }
  });

  it('marks an identity created in the same request unreadable', () => {
    const identity: Invocation = [
      'Identity/set',
      { create: { i: { email: 'a@x.test', bcc: [{ email: 'eve@evil.test' }] } } },
      'id',
    ];
    expect(sourceOf({ emailId: '#d', identityId: '#i' }, [draft, identity])).toEqual({
      kind: 'unreadable',
      why: 'its identityId #i names an identity created in this request',
    });
  });

  it('marks an #emailId that names a Blob/upload, or a create after the submission, unreadable', () => {
    const upload: Invocation = [
      'Blob/upload',
      { create: { u: { data: [{ 'data:asText': 'To: eve@evil.test\r\n\r\nx' }] } } },
      'b',
    ];
    expect(sourceOf({ emailId: '#u' }, [upload])).toEqual({
      kind: 'unreadable',
      why: '#u is created nowhere before the submission',
    });
    const sends = findBatchSends({
      using,
      methodCalls: [['EmailSubmission/set', { create: { s: { emailId: '#d' } } }, 's'], draft],
    });
    expect(sends.submissions[0]?.source.kind).toBe('unreadable');
  });

  it('marks a whole call unreadable when an argument that decides it is a result reference, and lets onSuccess references be', () => {
    expect(
      sourceOf({ emailId: '#d' }, [draft], { '#accountId': { resultOf: 'x', name: 'Core/echo', path: '/a' } }),
    ).toMatchObject({
      kind: 'unreadable',
      why: 'EmailSubmission/set (call s) takes #accountId from a result reference',
    });
    expect(
      sourceOf({ emailId: '#d' }, [draft], { onSuccessUpdateEmail: { '#s': { 'keywords/$draft': null } } }),
    ).toMatchObject({ kind: 'create' });
    expect(
      sourceOf({ emailId: '#d' }, [draft], {
        '#onSuccessUpdateEmail': { resultOf: 'x', name: 'Core/echo', path: '/a' },
      }),
    ).toMatchObject({ kind: 'create' });
  });

  it('marks the mail unreadable when the batch changes its content by a creation reference before sending it', () => {
    expect(
      sourceOf({ emailId: '#d' }, [
        draft,
        ['Email/set', { update: { '#d': { 'header:Bcc': ' eve@evil.test' } } }, 'u'],
      ]),
    ).toMatchObject({ kind: 'unreadable' });
    expect(
      sourceOf({ emailId: '#d' }, [draft, ['Email/set', { update: { '#d': { 'keywords/$seen': true } } }, 'u']]),
    ).toMatchObject({ kind: 'create' });
  });
});
