import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../../../src/auth/account-registry.js';
import { checkNamedFiles } from '../../../../src/request/guard/named-files.js';

/**
 * Files a request names, looked at before anything reads them: never from the inbox's credentials
 * directory or the user's config directory, as an ops_file or as an attachment; a bundled preset's
 * name is no file of the caller's.
 */

let base: string;
let configReads = 0;
let account: Account;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'named-files-'));
  for (const dir of ['inbox', 'config', 'work']) await mkdir(join(base, dir));
  for (const file of ['inbox/notes.json', 'config/notes.json', 'work/ops.json', 'work/report.txt'])
    await writeFile(join(base, file), '{}');
  account = {
    dir: join(base, 'inbox'),
    config: async () => ((configReads += 1), { userConfigDir: join(base, 'config') }),
  } as unknown as Account;
});
afterAll(() => rm(base, { recursive: true, force: true }));

async function refusal(input: Parameters<typeof checkNamedFiles>[1]): Promise<{ code: string; message: string }> {
  const error = await checkNamedFiles(account, input).then(
    () => undefined,
    (e: unknown) => e as { code: string; message: string },
  );
  expect(error, 'the file should have been refused').toBeDefined();
  return error!;
}

describe('checkNamedFiles', () => {
  it("refuses an ops_file or an attachment in the inbox's credentials directory or the user's config directory", async () => {
    for (const dir of ['inbox', 'config']) {
      const path = join(base, dir, 'notes.json');
      expect(await refusal({ ops_file: path })).toMatchObject({
        code: 'ops_invalid',
        message: expect.stringContaining('lies in a credentials directory'),
      });
      expect(await refusal({ attachments: [join(base, 'work', 'report.txt'), path] })).toMatchObject({
        code: 'attachment_invalid',
      });
    }
  });

  it('lets files from elsewhere through', async () => {
    await checkNamedFiles(account, {
      ops_file: join(base, 'work', 'ops.json'),
      attachments: [join(base, 'work', 'report.txt')],
    });
  });

  it("looks at nothing for a bundled preset's name, with or without .json, nor for a request naming no file", async () => {
    configReads = 0;
    await checkNamedFiles(account, { ops_file: 'list_inbox' });
    await checkNamedFiles(account, { ops_file: 'list_inbox.json' });
    await checkNamedFiles(account, { attachments: [] });
    await checkNamedFiles(account, {});
    expect(configReads).toBe(0);
    // A name no preset has, or not spelt as one, is a path like any other.
    for (const name of ['no_such_preset', 'List_Inbox', 'list_inbox.json5'])
      await checkNamedFiles(account, { ops_file: name });
    expect(configReads).toBe(3);
  });
});
