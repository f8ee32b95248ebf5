import type { Account } from '../../auth/account-registry.js';
import { checkNamedFile } from '../../policy/file-access.js';
import { listPackageDir } from '../../package-root.js';
import { presetsDir } from '../../presets/load-preset.js';

/**
 * Files a request names, never read from a credentials directory (this inbox's, the user config
 * directory, any holding a credentials.json above the file). A bundled preset reads nothing of the caller's.
 */
export async function checkNamedFiles(
  account: Account,
  input: { ops_file?: string | undefined; attachments?: readonly string[] | undefined },
): Promise<void> {
  const opsFile = input.ops_file !== undefined && !(await isBundledPreset(input.ops_file)) ? input.ops_file : undefined;
  if (opsFile === undefined && !input.attachments?.length) return;
  const config = await account.config();
  const credentialsDirs = [account.dir, config.userConfigDir];
  if (opsFile !== undefined) await checkNamedFile(opsFile, { purpose: 'ops_file', credentialsDirs });
  for (const path of input.attachments ?? []) await checkNamedFile(path, { purpose: 'attachment', credentialsDirs });
}

async function isBundledPreset(opsFile: string): Promise<boolean> {
  if (!/^[a-z][a-z0-9_]*(\.json)?$/.test(opsFile)) return false;
  const names = await listPackageDir(presetsDir());
  return names.includes(opsFile.endsWith('.json') ? opsFile : `${opsFile}.json`);
}
