import { describe, expect, it } from 'vitest';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import { readCreatedMail } from '../../../../src/policy/records/created-mail.js';
import { checkBatch } from '../../../../src/request/guard/check-batch.js';
import { fieldNameKey, namesAuthservId, resultsOfRaw } from '../../../../src/request/guard/mail/stamped-results.js';
import { fakeCheck } from '../../../helpers/fake-check-context.js';
import { refusal } from '../../../helpers/mailbox-refusal.js';

/**
 * An agent writing the service's verdict into its own inbox: a create or import carrying an
 * Authentication-Results field under the service's authserv-id is refused in every mode, however
 * the field is spelt or hidden, and every mail the tool writes is recorded for the known mode.
 */

const using = ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'];
const ours = 'agent-mailbox.test';
const stamp = `${ours}; dmarc=pass header.from=example.test`;
const base = {
  mailboxIds: { 'mb-inbox': true },
  from: [{ email: 'bob@example.test' }],
  subject: 'hi',
  bodyValues: { b: { value: 'x' } },
  textBody: [{ partId: 'b', type: 'text/plain' }],
};

function emailSet(create: Record<string, unknown>): JmapRequest {
  return { using, methodCalls: [['Email/set', { accountId: 'acc-1', create: { m: { ...base, ...create } } }, 'e']] };
}

async function refusedWrite(request: JmapRequest, mode?: string) {
  const check = await fakeCheck();
  if (mode) await check.inboxPolicy({ send: { mode } });
  const error = await refusal(checkBatch({ kind: 'batch', request }, check.context));
  expect(error.code).toBe('policy_refused');
  expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'stampedResults' } });
  return error;
}

async function passes(request: JmapRequest, blobs: Record<string, string> = {}): Promise<void> {
  const check = await fakeCheck();
  for (const [id, text] of Object.entries(blobs)) check.store.blobs[id] = Buffer.from(text, 'latin1');
  await checkBatch({ kind: 'batch', request }, check.context);
}

describe("a create carrying the service's Authentication-Results", () => {
  it('is refused in every mode, saying which field and why', async () => {
    for (const mode of [undefined, 'open', 'known', 'off']) {
      const error = await refusedWrite(emailSet({ 'header:Authentication-Results:asText': stamp }), mode);
      expect(error.message).toContain(`Authentication-Results field naming this service (${ours})`);
      expect(error.message).toContain('the mail m (Email/set)');
    }
  });

  it('is refused whatever the spelling of the field name', async () => {
    for (const name of [
      'authentication-results',
      'Authentication-Results ',
      'Authentication-Results\t',
      'Authentication\u00a0-Results',
      'Authentication-Re sults',
      'Authentication-Results\u0000',
      'AUTHENTICATION-RESULTS\u007f',
    ]) {
      await refusedWrite(emailSet({ [`header:${name}:asRaw`]: ` ${stamp}` }));
      await refusedWrite(emailSet({ headers: [{ name, value: stamp }] }));
    }
    await refusedWrite(emailSet({ 'header:Authentication-Results:asText:all': ['other.test; none', stamp] }));
  });

  it('is refused in a body part, and when the id is encoded, quoted, escaped, folded or split by a comment', async () => {
    await refusedWrite(
      emailSet({
        bodyStructure: { type: 'text/plain', partId: 'b', headers: [{ name: 'Authentication-Results', value: stamp }] },
      }),
    );
    await refusedWrite(
      emailSet({ attachments: [{ blobId: 'B1', type: 'text/plain', 'header:Authentication-Results': stamp }] }),
    );
    for (const value of [
      `=?utf-8?q?agent-mailbox=2Etest?=; dmarc=pass`,
      `=?UTF-8?B?${Buffer.from(ours).toString('base64')}?=; dmarc=pass`,
      `"${ours}"; dmarc=pass`,
      `agent\\-mailbox.test; x`,
      `agent-mailbox\r\n .test; x`,
      `agent-mailbox(c).test; x`,
      `(c) AGENT-MAILBOX.TEST.; x`,
    ]) {
      await refusedWrite(emailSet({ 'header:Authentication-Results:asRaw': value }));
    }
  });

  it('is refused when the create comes from a result reference', async () => {
    await refusedWrite({
      using,
      methodCalls: [
        ['Email/set', { accountId: 'acc-1', '#create': { resultOf: 'x', name: 'Email/get', path: '/list' } }, 'e'],
      ],
    });
  });

  it("passes with another service's results, or none", async () => {
    await passes(
      emailSet({ 'header:Authentication-Results:asText': 'mx.example.test; dmarc=pass header.from=example.test' }),
    );
    await passes(emailSet({ 'header:X-Note:asText': stamp }));
    await passes(emailSet({}));
  });
});

describe("an import carrying the service's Authentication-Results", () => {
  const raw = (fields: string) =>
    `From: bob@example.test\r\nSubject: hi\r\n${fields}\r\n\r\nbody Authentication-Results: ${stamp}\r\n`;
  const imported = (blobId: string, upload?: string): JmapRequest => ({
    using,
    methodCalls: [
      ...(upload !== undefined
        ? [
            ['Blob/upload', { accountId: 'acc-1', create: { up: { data: [{ 'data:asText': upload }] } } }, 'u'] as [
              string,
              Record<string, unknown>,
              string,
            ],
          ]
        : []),
      ['Email/import', { accountId: 'acc-1', emails: { i: { blobId, mailboxIds: { 'mb-inbox': true } } } }, 'i'],
    ],
  });

  it('is refused from a blob on the server or one uploaded in the same batch, in every spelling', async () => {
    for (const field of [
      `Authentication-Results: ${stamp}`,
      `authentication-results :${stamp}`,
      `Authentication-Results:\r\n\t${stamp}`,
      `Authentication-Results: x.test (y);\r\n ${ours}; dmarc=pass`,
    ]) {
      const check = await fakeCheck();
      check.store.blobs.B1 = Buffer.from(raw(field), 'latin1');
      await refusal(checkBatch({ kind: 'batch', request: imported('B1') }, check.context));
      await refusedWrite(imported('#up', raw(field)));
    }
  });

  it('passes when the service is named only in the body or another field', async () => {
    await passes(imported('B1'), { B1: raw(`X-Seen: ${ours}`) });
    await passes(imported('#up', raw('Authentication-Results: mx.example.test; none')));
  });

  it('is refused when it names no plain blob', async () => {
    await refusedWrite({
      using,
      methodCalls: [
        [
          'Email/import',
          { accountId: 'acc-1', emails: { i: { '#blobId': { resultOf: 'u', name: 'Blob/upload', path: '/x' } } } },
          'i',
        ],
      ],
    });
    await refusedWrite({
      using,
      methodCalls: [
        ['Email/import', { accountId: 'acc-1', '#emails': { resultOf: 'u', name: 'Foo/get', path: '/x' } }, 'i'],
      ],
    });
  });
});

describe('mail the tool writes', () => {
  it('is recorded by the ids the server created, for sets, imports and copies, and nothing else', async () => {
    const check = await fakeCheck();
    check.store.blobs.B1 = Buffer.from('Subject: x\r\n\r\nhi', 'latin1');
    const request: JmapRequest = {
      using,
      methodCalls: [
        ['Email/set', { accountId: 'acc-1', create: { m: base } }, 'e'],
        ['Email/import', { accountId: 'acc-1', emails: { i: { blobId: 'B1', mailboxIds: {} } } }, 'i'],
        [
          'Email/copy',
          { fromAccountId: 'acc-2', accountId: 'acc-1', create: { c: { id: 'X1', mailboxIds: {} } } },
          'c',
        ],
        ['Mailbox/set', { accountId: 'acc-1', create: { box: { name: 'b' } } }, 'b'],
      ],
    };
    const outcome = await checkBatch({ kind: 'batch', request }, check.context);
    const response = {
      methodResponses: [
        ['Email/set', { created: { m: { id: 'M1' } } }, 'e'],
        ['Email/import', { created: { i: { id: 'M2' } }, notCreated: { j: { type: 'x' } } }, 'i'],
        ['Email/copy', { created: { c: { id: 'M3' } } }, 'c'],
        ['Mailbox/set', { created: { box: { id: 'MB9' } } }, 'b'],
      ],
      sessionState: 's',
    } as unknown as JmapResponse;
    await outcome?.settle?.({ kind: 'batch', response });
    expect([...(await readCreatedMail(check.stateDir))]).toEqual(['M1', 'M2', 'M3']);
    await outcome?.settle?.({ kind: 'failed', error: new Error('x') });
    expect((await readCreatedMail(check.stateDir)).size).toBe(3);
  });
});

describe('the pieces', () => {
  it('read a field name as the composer does', () => {
    expect(fieldNameKey(' Authentication-Results:\t\u00a0')).toBe('authentication-results');
  });

  it('find the id however a parser might', () => {
    expect(namesAuthservId('x.test; none', ours)).toBe(false);
    expect(namesAuthservId('anything', '')).toBe(true);
    expect(namesAuthservId('=?bogus?q?agent-mailbox.test?=', ours)).toBe(true);
  });

  it('read only the header section of a raw message, its folded lines joined', () => {
    expect(resultsOfRaw(Buffer.from(`A: b\nAuthentication-Results: x\n y\n\nAuthentication-Results: body`))).toEqual([
      ' x y',
    ]);
    expect(resultsOfRaw(Buffer.from('Authentication-Results: only headers'))).toEqual([' only headers']);
  });
});
