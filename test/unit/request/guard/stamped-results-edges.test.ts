import { describe, expect, it } from 'vitest';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import { readCreatedMail } from '../../../../src/policy/records/created-mail.js';
import { checkBatch } from '../../../../src/request/guard/check-batch.js';
import { namesAuthservId, resultsOfRaw } from '../../../../src/request/guard/mail/stamped-results.js';
import { fakeCheck } from '../../../helpers/fake-check-context.js';
import { refusal } from '../../../helpers/mailbox-refusal.js';

/**
 * More spellings of the service's verdict an agent might forge into its own inbox (encoded words a
 * careless decoder misses, comments with escapes, a stray parenthesis, a field hidden deep in a
 * body part or spelt in capitals), and exactly which created ids are recorded for the known mode.
 */

const using = ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'];
const ours = 'agent-mailbox.test';

function emailSet(create: Record<string, unknown>): JmapRequest {
  return {
    using,
    methodCalls: [
      ['Email/set', { accountId: 'acc-1', create: { m: { mailboxIds: { 'mb-inbox': true }, ...create } } }, 'e'],
    ],
  };
}

async function refused(request: JmapRequest, blobs: Record<string, string> = {}) {
  const check = await fakeCheck();
  for (const [id, text] of Object.entries(blobs)) check.store.blobs[id] = Buffer.from(text, 'latin1');
  const error = await refusal(checkBatch({ kind: 'batch', request }, check.context));
  expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'stampedResults' } });
  return error;
}

describe('the authserv-id in a field value', () => {
  it('is found in encoded words of any letter case, with underscores for spaces and a language tag', () => {
    for (const value of [
      '=?utf-8?q?agent-mailbox=2etest?=; dmarc=pass',
      '=?UTF-8?Q?agent-mailbox_=2Etest?=; dmarc=pass',
      `=?utf-8?b?${Buffer.from(ours).toString('base64')}?=; dmarc=pass`,
      '=?utf-8*en?q?agent-mailbox=2Etest?=; dmarc=pass',
      '=?iso-8859-1?Q?agent=2Dmailbox=2Etest?=',
    ])
      expect(namesAuthservId(value, ours), value).toBe(true);
    expect(namesAuthservId('=?utf-8?q?other=2Etest?=; dmarc=pass', ours)).toBe(false);
  });

  it('is found across a comment holding an escaped parenthesis, and after a stray closing one', () => {
    expect(namesAuthservId('agent-mailbox(a\\)b).test; dmarc=pass', ours)).toBe(true);
    expect(namesAuthservId(') agent-mailbox(x).test; dmarc=pass', ours)).toBe(true);
    expect(namesAuthservId('agent-mailbox(x)(y).test', ours)).toBe(true);
    expect(namesAuthservId('agent-mailbox(x(nested)y).test', ours)).toBe(true);
  });

  it('is compared as the configuration would write it: spaces, capitals and a final dot ignored', () => {
    expect(namesAuthservId('agent-mailbox.test; dmarc=pass', ' Agent-Mailbox.TEST. ')).toBe(true);
    expect(namesAuthservId('AGENT-MAILBOX.TEST; dmarc=pass', ours)).toBe(true);
    expect(namesAuthservId('other.test; dmarc=pass', ' ')).toBe(true);
    expect(namesAuthservId('agent-mailbox.tes; dmarc=pass', ours)).toBe(false);
  });
});

describe('the header section of a raw message', () => {
  it('ends at the first empty line, whatever its line ends', () => {
    expect(resultsOfRaw(Buffer.from('A: b\r\n\r\nAuthentication-Results: body'))).toEqual([]);
    expect(resultsOfRaw(Buffer.from('A: b\n\r\nAuthentication-Results: body'))).toEqual([]);
    expect(resultsOfRaw(Buffer.from('Authentication-Results: a\r\nX: y\rAuthentication-Results: b\r\n\r\n'))).toEqual([
      ' a',
      ' b',
    ]);
  });

  it('keeps a field whose value is empty and skips a line without a colon', () => {
    expect(resultsOfRaw(Buffer.from('Authentication-Results\r\nAuthentication-Results:\r\n\r\n'))).toEqual(['']);
  });

  it('is read from the bytes given, not the buffer beneath them', () => {
    const whole = Buffer.from('Authentication-Results: outside\r\nAuthentication-Results: inside\r\n\r\n');
    const tail = whole.subarray(whole.indexOf('Authentication-Results: inside'));
    expect(resultsOfRaw(new Uint8Array(tail.buffer, tail.byteOffset, tail.byteLength))).toEqual([' inside']);
  });
});

describe('a create that forges the verdict where a reader might not look', () => {
  it('is refused with the field in a nested body part, or named in capitals', async () => {
    await refused(
      emailSet({
        bodyStructure: {
          type: 'multipart/mixed',
          subParts: [
            { type: 'text/plain', partId: 'b' },
            {
              type: 'message/rfc822',
              subParts: [{ headers: [{ name: 'authentication-RESULTS', value: `${ours}; x` }] }],
            },
          ],
        },
      }),
    );
    await refused(emailSet({ 'HEADER:Authentication-Results:asText': `${ours}; dmarc=pass` }));
    await refused(emailSet({ 'header:Authentication-Results:asText:all': [`${ours}; dmarc=pass`] }));
  });

  it('is not taken for the verdict from fields of other names, or header list entries that are no fields', async () => {
    const check = await fakeCheck();
    // The create rules refuse such a create on their own; what matters here is that the verdict check passes it.
    const error = await refusal(
      checkBatch(
        {
          kind: 'batch',
          request: emailSet({
            headers: ['x', { name: 7, value: ours }, { name: 'X-Authentication-Results', value: ours }],
            'header:Authentication-Results-X:asText': ours,
          }),
        },
        check.context,
      ),
    );
    expect(error.message).not.toContain('naming this service');
    expect(error.message).toContain('has the headers property');
  });

  it('is refused for an import that is no object, or that takes any of its properties from a result reference', async () => {
    for (const create of [
      'B1',
      { blobId: 'B1', '#mailboxIds': { resultOf: 'q', name: 'Mailbox/get', path: '/ids' } },
    ]) {
      const error = await refused(
        { using, methodCalls: [['Email/import', { accountId: 'acc-1', emails: { i: create } }, 'i']] },
        { B1: 'Subject: x\r\n\r\nhi' },
      );
      expect(error.message).toContain('the mail i (Email/import) names no plain blobId');
    }
  });
});

describe('what the refusal of a forged verdict says', () => {
  it('names the call or mail it refuses and what it could not check', async () => {
    const reference = { resultOf: 'q', name: 'Foo/get', path: '/x' };
    const bySet = await refused({
      using,
      methodCalls: [['Email/set', { accountId: 'acc-1', '#create': reference }, 'e']],
    });
    expect(bySet.message).toContain(
      'Email/set takes its creates from a result reference, so what it writes cannot be checked',
    );
    expect(bySet.details).toMatchObject({ write: 'Email/set' });
    const byImport = await refused({
      using,
      methodCalls: [['Email/import', { accountId: 'acc-1', '#emails': reference }, 'i']],
    });
    expect(byImport.message).toContain(
      'Email/import takes its mail from a result reference, so what it writes cannot be checked',
    );
    const stamped = await refused(
      { using, methodCalls: [['Email/import', { accountId: 'acc-1', emails: { i: { blobId: 'B1' } } }, 'i']] },
      { B1: `Authentication-Results: ${ours}; dmarc=pass\r\n\r\nhi` },
    );
    expect(stamped.message).toContain(
      `the mail i (Email/import) carries an Authentication-Results field naming this service (${ours})`,
    );
    expect(stamped.details).toMatchObject({ write: 'the mail i (Email/import)' });
  });

  it('is not given for a list of name/value pairs that is no header list', async () => {
    const check = await fakeCheck();
    check.store.blobs.B1 = Buffer.from('x');
    const outcome = await checkBatch(
      {
        kind: 'batch',
        request: emailSet({
          attachments: [{ blobId: 'B1', type: 'text/plain', name: 'Authentication-Results', value: ours }],
          keywords: { 'x-header:Authentication-Results': true },
        }),
      },
      check.context,
    ).catch((error: unknown) => error);
    expect(String((outcome as Error | undefined)?.message)).not.toContain('naming this service');
  });
});

describe('the ids recorded as written by the tool', () => {
  it('are only those the server created for an email write of this request', async () => {
    const check = await fakeCheck();
    const request: JmapRequest = {
      using,
      methodCalls: [
        ['Email/set', { accountId: 'acc-1', create: { m: { mailboxIds: { 'mb-inbox': true } } } }, 'e'],
        ['Mailbox/set', { accountId: 'acc-1', create: { b: { name: 'x' } } }, 'b'],
      ],
    };
    const outcome = await checkBatch({ kind: 'batch', request }, check.context);
    const response = {
      methodResponses: [
        ['Email/set', { created: { m: { id: 'M1' }, n: { id: 5 }, o: null } }, 'e'],
        ['Email/set', { created: { x: { id: 'M-other-call' } } }, 'b'],
        ['Email/set', { created: { y: { id: 'M-unknown-call' } } }, 'zz'],
        ['Email/set', { created: 'M-not-a-map' }, 'e'],
        ['Mailbox/set', { created: { b: { id: 'MB1' } } }, 'b'],
      ],
      sessionState: 's',
    } as unknown as JmapResponse;
    await outcome?.settle?.({ kind: 'batch', response });
    expect([...(await readCreatedMail(check.stateDir))]).toEqual(['M1']);
  });
});
