import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** A fresh directory for one test's credentials (the dir itself does not exist yet), removed afterwards. */
export async function tempCredentialsDir(): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'agent-mailbox-test-'));
  onTestFinished(async () => {
    await rm(parent, { recursive: true, force: true });
  });
  return join(parent, 'credentials');
}
