import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JmapRequest } from '../../../../src/jmap/jmap-types.js';
import { markInboxWaking } from '../../../../src/policy/records/wake-read-only.js';
import { checkBatch } from '../../../../src/request/guard/check-batch.js';
import { checkUpload } from '../../../../src/request/guard/check-upload.js';
import { fakeCheck, type FakeCheck } from '../../../helpers/fake-check-context.js';
import { refusal as refusedBy } from '../../../helpers/mailbox-refusal.js';

/**
 * An upload of a file the caller named: where the operator lets attachments come from, never from a
 * credentials directory, never while a wake holds the inbox read-only; and the uploaded bytes are
 * what the batch sending them is scanned on.
 */

async function file(check: FakeCheck, relative: string, text: string): Promise<string> {
  const path = join(check.root, relative);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
  return path;
}

const upload = (path: string, text: string) => ({
  kind: 'upload' as const,
  bytes: Buffer.from(text),
  type: 'text/plain',
  source: { kind: 'file' as const, path },
});

describe('checkUpload', () => {
  it('lets a file from anywhere through when the operator set no attachment directory', async () => {
    const check = await fakeCheck();
    const path = await file(check, 'work/report.txt', 'quarterly');
    expect(await checkUpload(upload(path, 'quarterly'), check.context)).toMatchObject({ settle: expect.any(Function) });
  });

  it("takes files only from inside every layer's attachment directory, naming the layer that refuses", async () => {
    const check = await fakeCheck();
    const outgoing = join(check.root, 'outgoing');
    const inside = await file(check, 'outgoing/team/report.txt', 'ok');
    const outside = await file(check, 'elsewhere/report.txt', 'private');
    await check.userPolicy({ send: { attachFrom: outgoing } });
    await checkUpload(upload(inside, 'ok'), check.context);
    const error = await refusedBy(checkUpload(upload(outside, 'private'), check.context));
    expect(error.code).toBe('policy_refused');
    expect(error.message).toBe(
      `Not sent: your operator's policy (user layer) allows attachments only from ${outgoing}, and ${outside} is not there.`,
    );
    expect(error.details).toEqual({ rule: { layer: 'user', rule: 'send.attachFrom' }, path: outside });
    // A second layer narrows further: the file must lie inside both.
    await check.inboxPolicy({ send: { attachFrom: join(outgoing, 'other') } });
    expect((await refusedBy(checkUpload(upload(inside, 'ok'), check.context))).details).toMatchObject({
      rule: { layer: 'inbox', rule: 'send.attachFrom' },
    });
  });

  it("never uploads a file from the inbox's credentials directory", async () => {
    const check = await fakeCheck();
    await mkdir(check.stateDir, { recursive: true });
    const secret = join(check.stateDir, 'notes.txt');
    await writeFile(secret, 'anything');
    const error = await refusedBy(checkUpload(upload(secret, 'anything'), check.context));
    expect(error.code).toBe('attachment_invalid');
    expect(error.message).toContain('lies in a credentials directory');
  });

  it('refuses an upload while a wake holds the inbox read-only', async () => {
    const check = await fakeCheck();
    const path = await file(check, 'report.txt', 'x');
    const release = await markInboxWaking(check.userConfigDir, check.inbox);
    try {
      const error = await refusedBy(checkUpload(upload(path, 'x'), check.context));
      expect(error.message).toContain('(an upload would change it)');
    } finally {
      await release();
    }
    const wake = await fakeCheck({ isWake: true });
    expect((await refusedBy(checkUpload(upload(path, 'x'), wake.context))).details).toEqual({
      rule: { layer: 'default', rule: 'wake.readOnly' },
    });
  });

  it('scans the batch that sends the uploaded file on the bytes uploaded, without downloading them again', async () => {
    const check = await fakeCheck();
    const key =
      'aws_access_key_id = AKIAQYLPMN5HHHFPZAM2\naws_secret_access_key = 8lOTUlPnzS8n0HwE1ujqG5IQm0cTaBnH0pc7+ZNt\n';
    const path = await file(check, 'notes.txt', key);
    const outcome = await checkUpload(upload(path, key), check.context);
    // Answers other than the upload's own teach it nothing.
    await outcome!.settle!({ kind: 'failed', error: new Error('reset') });
    await outcome!.settle!({ kind: 'upload', blobId: 'G1' });
    const request: JmapRequest = {
      using: [],
      methodCalls: [
        [
          'Email/set',
          {
            accountId: 'acc-1',
            create: {
              d: {
                to: [{ email: 'bob@example.test' }],
                subject: 'Notes',
                bodyValues: { b: { value: 'see file' } },
                attachments: [{ blobId: 'G1', name: 'notes.txt', type: 'text/plain' }],
              },
            },
          },
          'c0',
        ],
        ['EmailSubmission/set', { accountId: 'acc-1', create: { s: { emailId: '#d' } } }, 'c1'],
      ],
    };
    // The fake store has no blob G1: a download would fail with another error than the scan's.
    const error = await refusedBy(checkBatch({ kind: 'batch', request }, check.context));
    expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'send.secretScan' } });
    expect(error.message).toContain('in the attachment notes.txt');
  });
});
