import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { checkNamedFile } from '../../../src/policy/file-access.js';

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'file-access-'));
  await mkdir(join(base, 'inbox', 'sub'), { recursive: true });
  await writeFile(join(base, 'inbox', 'credentials.json'), '{}');
  await writeFile(join(base, 'inbox', 'sub', 'deep.txt'), 'x');
  await mkdir(join(base, 'out'));
  await writeFile(join(base, 'out', 'ok.txt'), 'x');
  await writeFile(join(base, 'other.txt'), 'x');
  await symlink(join(base, 'inbox', 'sub', 'deep.txt'), join(base, 'out', 'sneaky.txt'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

const refusal = async (promise: Promise<unknown>): Promise<MailboxError> =>
  (await promise.catch((e: unknown) => e)) as MailboxError;

describe('files the model names', () => {
  it('refuses any file under a directory holding credentials.json, through symlinks too, and never shows its content', async () => {
    for (const path of [
      join(base, 'inbox', 'credentials.json'),
      join(base, 'inbox', 'sub', 'deep.txt'),
      join(base, 'out', 'sneaky.txt'),
    ]) {
      const error = await refusal(checkNamedFile(path, { purpose: 'attachment', credentialsDirs: [] }));
      expect(error.code).toBe('attachment_invalid');
      expect(error.message).toContain(join(base, 'inbox'));
    }
    expect(
      (
        await refusal(
          checkNamedFile(join(base, 'inbox', 'sub', 'deep.txt'), { purpose: 'ops_file', credentialsDirs: [] }),
        )
      ).code,
    ).toBe('ops_invalid');
  });

  it("refuses any file under a directory holding a connected account's grant or access tokens", async () => {
    for (const file of ['oauth.json', 'access-tokens.json']) {
      const dir = join(base, `grant-${file}`);
      await mkdir(join(dir, 'inboxes', 'ada'), { recursive: true });
      await writeFile(join(dir, file), '{}');
      await writeFile(join(dir, 'inboxes', 'ada', 'notes.txt'), 'x');
      for (const path of [join(dir, file), join(dir, 'inboxes', 'ada', 'notes.txt')]) {
        const error = await refusal(checkNamedFile(path, { purpose: 'attachment', credentialsDirs: [] }));
        expect(error.code, path).toBe('attachment_invalid');
        expect(error.message).toContain(dir);
        expect((await refusal(checkNamedFile(path, { purpose: 'ops_file', credentialsDirs: [] }))).code).toBe(
          'ops_invalid',
        );
      }
    }
    await expect(
      checkNamedFile(join(base, 'out', 'ok.txt'), { purpose: 'attachment', credentialsDirs: [] }),
    ).resolves.toBe(join(base, 'out', 'ok.txt'));
  });

  it('refuses files in the configured credentials directories even without a credentials.json', async () => {
    expect(
      (await refusal(checkNamedFile(join(base, 'other.txt'), { purpose: 'attachment', credentialsDirs: [base] }))).code,
    ).toBe('attachment_invalid');
  });

  it('keeps attachments inside every attachment directory of the operator', async () => {
    await expect(
      checkNamedFile(join(base, 'out', 'ok.txt'), {
        purpose: 'attachment',
        credentialsDirs: [],
        attachFrom: [{ dir: join(base, 'out'), from: 'user' }],
      }),
    ).resolves.toBe(join(base, 'out', 'ok.txt'));
    const error = await refusal(
      checkNamedFile(join(base, 'other.txt'), {
        purpose: 'attachment',
        credentialsDirs: [],
        attachFrom: [{ dir: join(base, 'out'), from: 'inbox' }],
      }),
    );
    expect(error.code).toBe('policy_refused');
    expect(error.details).toMatchObject({ rule: { layer: 'inbox', rule: 'send.attachFrom' } });
  });
});
