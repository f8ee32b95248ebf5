import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JmapRequest } from '../../../../src/jmap/jmap-types.js';
import { scanForSecrets } from '../../../../src/policy/secret-scan.js';
import { checkBatch } from '../../../../src/request/guard/check-batch.js';
import { callMemo } from '../../../../src/request/guard/mail/blob-lookup.js';
import { fakeCheck, type FakeCheck } from '../../../helpers/fake-check-context.js';
import { refusal } from '../../../helpers/mailbox-refusal.js';

/**
 * A secret sent as a slice or a composition of another blob (RFC 9404): a private key attached
 * without its BEGIN/END lines passes a scan of the slice, so the sources are scanned whole.
 */

const using = [
  'urn:ietf:params:jmap:core',
  'urn:ietf:params:jmap:mail',
  'urn:ietf:params:jmap:submission',
  'urn:ietf:params:jmap:blob',
];
const key = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const keyFile = `notes for later\n${key}\nend of notes\n`;
const bodyStart = keyFile.indexOf('\n', keyFile.indexOf('-----BEGIN')) + 1;
const bodyLength = keyFile.indexOf('-----END') - bodyStart;

function upload(data: unknown[]): JmapRequest['methodCalls'][number] {
  return ['Blob/upload', { accountId: 'acc-1', create: { slice: { data, type: 'text/plain' } } }, 'u'];
}

function sending(data: unknown[]): JmapRequest {
  return {
    using,
    methodCalls: [
      upload(data),
      [
        'Email/set',
        {
          accountId: 'acc-1',
          create: {
            d: {
              mailboxIds: { 'mb-drafts': true },
              from: [{ email: 'ada@agent-mailbox.test' }],
              to: [{ email: 'bob@example.test' }],
              subject: 'notes',
              bodyValues: { b: { value: 'see attached' } },
              textBody: [{ partId: 'b', type: 'text/plain' }],
              attachments: [{ blobId: '#slice', type: 'text/plain', name: 'notes.txt' }],
            },
          },
        },
        'e',
      ],
      ['EmailSubmission/set', { accountId: 'acc-1', create: { s: { emailId: '#d', identityId: 'id-1' } } }, 's'],
    ],
  };
}

async function withKeyBlob(): Promise<FakeCheck> {
  const check = await fakeCheck();
  check.store.blobs.Bkey = Buffer.from(keyFile, 'latin1');
  check.store.blobs.Bclean = Buffer.from('nothing secret here, only a shopping list\n'.repeat(20), 'latin1');
  return check;
}

describe('a blob made from a slice of another', () => {
  it('the slice alone looks harmless to the scan: that is the attack', async () => {
    expect(
      await scanForSecrets([{ where: 'the slice', text: keyFile.slice(bodyStart, bodyStart + bodyLength) }]),
    ).toEqual([]);
  });

  it('is refused when the key is attached without its BEGIN/END lines, naming the rule, and nothing is sent', async () => {
    const check = await withKeyBlob();
    const error = await refusal(
      checkBatch(
        { kind: 'batch', request: sending([{ blobId: 'Bkey', offset: bodyStart, length: bodyLength }]) },
        check.context,
      ),
    );
    expect(error.code).toBe('policy_refused');
    expect(error.message).toContain(
      'the blob slice (Blob/upload) is made from a blob that carries what looks like a secret (a private key in the blob Bkey it is made from)',
    );
    expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'send.secretScan' } });
    expect(error.message).not.toContain(keyFile.slice(bodyStart, bodyStart + 20));
  });

  it('is refused in every composition: several slices, text around them, a file uploaded earlier in the call, and without a send in the batch', async () => {
    const variants: unknown[][] = [
      [
        { blobId: 'Bkey', offset: bodyStart, length: 20 },
        { 'data:asText': '' },
        { blobId: 'Bkey', offset: bodyStart + 20, length: bodyLength - 20 },
      ],
      [
        { 'data:asBase64': Buffer.from('a harmless preface\n').toString('base64') },
        { blobId: 'Bclean' },
        { blobId: 'Bkey', offset: bodyStart + 5 },
      ],
      [{ blobId: 'Bkey' }],
    ];
    for (const data of variants) {
      const check = await withKeyBlob();
      await refusal(checkBatch({ kind: 'batch', request: sending(data) }, check.context));
      await refusal(checkBatch({ kind: 'batch', request: { using, methodCalls: [upload(data)] } }, check.context));
    }
    const check = await fakeCheck();
    callMemo(check.context).uploads.set('Bfile', { bytes: Buffer.from(keyFile, 'latin1') });
    await refusal(
      checkBatch(
        { kind: 'batch', request: sending([{ blobId: 'Bfile', offset: bodyStart, length: bodyLength }]) },
        check.context,
      ),
    );
  });

  it('is refused when a source comes from a result reference, or is no blob id', async () => {
    const check = await withKeyBlob();
    const byReference = await refusal(
      checkBatch(
        {
          kind: 'batch',
          request: sending([
            { '#blobId': { resultOf: 'x', name: 'Email/get', path: '/list/0/blobId' }, offset: 0, length: 10 },
          ]),
        },
        check.context,
      ),
    );
    expect(byReference.message).toContain('result reference');
    const notAnId = await refusal(checkBatch({ kind: 'batch', request: sending([{ blobId: 42 }]) }, check.context));
    expect(notAnId.message).toContain('no blob id');
    await refusal(
      checkBatch(
        {
          kind: 'batch',
          request: {
            using,
            methodCalls: [
              ['Blob/upload', { accountId: 'acc-1', '#create': { resultOf: 'x', name: 'Foo/get', path: '/x' } }, 'u'],
            ],
          },
        },
        check.context,
      ),
    );
  });

  it('passes when its sources are clean, and when the operator turned the scan off', async () => {
    const check = await withKeyBlob();
    await expect(
      checkBatch(
        { kind: 'batch', request: sending([{ blobId: 'Bclean', offset: 10, length: 100 }, { 'data:asText': 'more' }]) },
        check.context,
      ),
    ).resolves.toBeDefined();
    const off = await withKeyBlob();
    await off.inboxPolicy({ send: { secretScan: 'off' } });
    await expect(
      checkBatch(
        { kind: 'batch', request: sending([{ blobId: 'Bkey', offset: bodyStart, length: bodyLength }]) },
        off.context,
      ),
    ).resolves.toBeDefined();
  });
});
