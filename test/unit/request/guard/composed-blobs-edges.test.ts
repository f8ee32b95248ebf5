import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JmapRequest } from '../../../../src/jmap/jmap-types.js';
import { checkBatch } from '../../../../src/request/guard/check-batch.js';
import { fakeCheck } from '../../../helpers/fake-check-context.js';
import { refusal } from '../../../helpers/mailbox-refusal.js';

/**
 * More ways to compose a blob around the scan: a slice of a blob uploaded earlier in the same batch,
 * a range taken from a result reference, several sources that each carry a secret; and the blobs
 * that are no composition at all, which the check leaves alone.
 */

const using = ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:blob'];
const key = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const bodyStart = key.indexOf('\n') + 1;
const bodyLength = key.indexOf('-----END') - bodyStart;

const uploads = (create: Record<string, unknown>): JmapRequest => ({
  using,
  methodCalls: [['Blob/upload', { accountId: 'acc-1', create }, 'u']],
});

async function withBlobs() {
  const check = await fakeCheck();
  check.store.blobs.Bkey = Buffer.from(key, 'latin1');
  check.store.blobs.Bkey2 = Buffer.from(`again\n${key}`, 'latin1');
  check.store.blobs.Bclean = Buffer.from('a shopping list\n'.repeat(10), 'latin1');
  return check;
}

describe('a blob composed in the same batch', () => {
  it('is refused when it slices a blob the batch uploads whole', async () => {
    const check = await withBlobs();
    const error = await refusal(
      checkBatch(
        {
          kind: 'batch',
          request: uploads({
            whole: { data: [{ 'data:asText': key }] },
            slice: { data: [{ blobId: '#whole', offset: bodyStart, length: bodyLength }] },
          }),
        },
        check.context,
      ),
    );
    expect(error.message).toContain(
      'the blob slice (Blob/upload) is made from a blob that carries what looks like a secret (a private key in the blob #whole it is made from)',
    );
  });

  it('names every source that carries a secret, and the layer of the rule', async () => {
    const check = await withBlobs();
    await check.inboxPolicy({ send: { secretScan: 'on' } });
    const error = await refusal(
      checkBatch(
        { kind: 'batch', request: uploads({ both: { data: [{ blobId: 'Bkey', offset: 1 }, { blobId: 'Bkey2' }] } }) },
        check.context,
      ),
    );
    expect(error.message).toContain(
      '(a private key in the blob Bkey it is made from; a private key in the blob Bkey2 it is made from)',
    );
    expect(error.details).toMatchObject({
      rule: { layer: 'inbox', rule: 'send.secretScan' },
      findings: [{ where: 'the blob Bkey it is made from' }, { where: 'the blob Bkey2 it is made from' }],
    });
  });

  it('is refused as unjudgeable when any part of a source comes from a result reference', async () => {
    const reference = { resultOf: 'q', name: 'Foo/get', path: '/x' };
    for (const item of [{ blobId: 'Bclean', '#offset': reference }, { '#blobId': reference }]) {
      const check = await withBlobs();
      const error = await refusal(
        checkBatch({ kind: 'batch', request: uploads({ part: { data: [item] } }) }, check.context),
      );
      expect(error.message).toContain(
        'the blob part (Blob/upload) takes its content from a result reference, so its sources cannot be checked for secrets',
      );
      expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'unjudgeable' } });
    }
    const check = await withBlobs();
    const error = await refusal(
      checkBatch({ kind: 'batch', request: uploads({ part: { data: [{ blobId: null }] } }) }, check.context),
    );
    expect(error.message).toContain('the blob part (Blob/upload) names a source that is no blob id');
    expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'unjudgeable' } });
  });
});

describe('a blob that is no composition', () => {
  it('is left to the other checks, with no source read', async () => {
    const check = await withBlobs();
    check.store.blobs = {};
    const request = uploads({
      text: { data: [{ 'data:asText': 'hello' }, 'not an item', null] },
      nothing: 'not a create',
      empty: {},
    });
    await checkBatch({ kind: 'batch', request }, check.context);
    const notCreates: JmapRequest = { using, methodCalls: [['Blob/upload', { accountId: 'acc-1', create: 'x' }, 'u']] };
    await checkBatch({ kind: 'batch', request: notCreates }, check.context);
  });
});
