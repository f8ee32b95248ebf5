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

  it('says what to do instead in each refusal: the hint fits the purpose, the message names the path and the rule', async () => {
    const attachment = await refusal(
      checkNamedFile(join(base, 'inbox', 'sub', 'deep.txt'), { purpose: 'attachment', credentialsDirs: [] }),
    );
    expect(attachment.message).toContain(join(base, 'inbox', 'sub', 'deep.txt'));
    expect(attachment.hint).toMatch(/Attach a file from elsewhere/);
    const ops = await refusal(
      checkNamedFile(join(base, 'inbox', 'sub', 'deep.txt'), { purpose: 'ops_file', credentialsDirs: [] }),
    );
    expect(ops.hint).toMatch(/ops files outside credentials directories/);
    const outside = await refusal(
      checkNamedFile(join(base, 'other.txt'), {
        purpose: 'attachment',
        credentialsDirs: [],
        attachFrom: [{ dir: join(base, 'out'), from: 'machine' }],
      }),
    );
    expect(outside.message).toContain('(machine layer)');
    expect(outside.message).toContain(`only from ${join(base, 'out')}`);
    expect(outside.message).toContain(`${join(base, 'other.txt')} is not there`);
    expect(outside.hint).toMatch(/Attach a file from that directory, or ask your operator/);
  });

  it('applies the attachment directories to attachments only, not to an ops file', async () => {
    await expect(
      checkNamedFile(join(base, 'other.txt'), {
        purpose: 'ops_file',
        credentialsDirs: [],
        attachFrom: [{ dir: join(base, 'out'), from: 'user' }],
      }),
    ).resolves.toBe(join(base, 'other.txt'));
  });

  it('lets a missing file pass outside credentials directories (reading it fails later) but refuses one inside', async () => {
    await expect(
      checkNamedFile(join(base, 'out', 'missing.txt'), { purpose: 'attachment', credentialsDirs: [] }),
    ).resolves.toBe(join(base, 'out', 'missing.txt'));
    expect(
      (
        await refusal(
          checkNamedFile(join(base, 'inbox', 'missing.json'), { purpose: 'attachment', credentialsDirs: [] }),
        )
      ).code,
    ).toBe('attachment_invalid');
    expect(
      (
        await refusal(
          checkNamedFile(join(base, 'gone', 'missing.txt'), {
            purpose: 'attachment',
            credentialsDirs: [join(base, 'gone')],
          }),
        )
      ).code,
    ).toBe('attachment_invalid');
  });

  it('refuses a file whose name starts with two dots inside a configured credentials directory', async () => {
    const dir = join(base, 'configured');
    await mkdir(dir, { recursive: true });
    for (const name of ['..token', '...', '..key.pem']) {
      await writeFile(join(dir, name), 'secret');
      const error = await refusal(checkNamedFile(join(dir, name), { purpose: 'attachment', credentialsDirs: [dir] }));
      expect(error.code, name).toBe('attachment_invalid');
    }
  });

  it('does not count the parent of a credentials directory, or a sibling with a longer name, as inside it', async () => {
    await mkdir(join(base, 'out', 'creds'), { recursive: true });
    await mkdir(join(base, 'out', 'creds-old'), { recursive: true });
    await writeFile(join(base, 'out', 'creds-old', 'note.txt'), 'x');
    const rules = { purpose: 'attachment' as const, credentialsDirs: [join(base, 'out', 'creds')] };
    await expect(checkNamedFile(join(base, 'out'), rules)).resolves.toBe(join(base, 'out'));
    await expect(checkNamedFile(join(base, 'out', 'creds-old', 'note.txt'), rules)).resolves.toBe(
      join(base, 'out', 'creds-old', 'note.txt'),
    );
  });
});
