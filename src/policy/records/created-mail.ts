import { join } from 'node:path';
import { ensurePrivateDir, readPrivateFile } from '../../credentials/secure-file.js';
import { appendPrivate } from './json-lines.js';

/**
 * The ids of mail this tool wrote into the inbox itself. Such mail carries whatever header fields its writer chose,
 * so the `known` mode never takes an Authentication-Results field on one as the service's verdict.
 */

const createdMailFile = 'created-mail.ids';

export async function recordCreatedMail(dir: string, ids: readonly string[]): Promise<void> {
  const clean = ids.filter((id) => id.length > 0 && !/[\r\n]/.test(id));
  if (clean.length === 0) return;
  await ensurePrivateDir(dir);
  await appendPrivate(join(dir, createdMailFile), clean.map((id) => `${id}\n`).join(''));
}

export async function readCreatedMail(dir: string): Promise<ReadonlySet<string>> {
  const text = await readPrivateFile(join(dir, createdMailFile));
  return new Set((text ?? '').split('\n').filter((line) => line.length > 0));
}
