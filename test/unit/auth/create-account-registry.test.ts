import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAccountRegistry } from '../../../src/auth/create-account-registry.js';
import { MailboxError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

const stored = {
  apiKey: 'ak_stored_0123456789',
  inboxId: 'alice',
  authUrl: 'http://127.0.0.1:9/auth',
  apiUrl: 'http://127.0.0.1:9/api',
};

async function withCredentials(): Promise<string> {
  const dir = await tempCredentialsDir();
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'credentials.json'), JSON.stringify(stored));
  return dir;
}

describe('createAccountRegistry', () => {
  it('resolves config with credentials.json as a layer below flags and environment', async () => {
    const dir = await withCredentials();
    const plain = createAccountRegistry({ configInputs: { env: {} }, log: silentLogger }).open(dir);
    const config = await plain.config();
    expect(config.authUrl).toBe(stored.authUrl);
    expect(config.sources.authUrl).toBe('credentials');
    expect(config.credentialsDir).toBe(dir);
    const overridden = createAccountRegistry({
      configInputs: { env: { AGENT_MAILBOX_AUTH_URL: 'http://127.0.0.1:8/' } },
      log: silentLogger,
    }).open(dir);
    expect((await overridden.config()).authUrl).toBe('http://127.0.0.1:8');
  });

  it('returns one cached account per directory', async () => {
    const dir = await withCredentials();
    const registry = createAccountRegistry({ configInputs: { env: {} }, log: silentLogger });
    expect(registry.open(dir)).toBe(registry.open(`${dir}/`));
  });

  it('opens the configured default directory when none is given', async () => {
    const dir = await withCredentials();
    const registry = createAccountRegistry({
      configInputs: { env: { AGENT_MAILBOX_CREDENTIALS_DIR: dir } },
      log: silentLogger,
    });
    expect(registry.open().dir).toBe(dir);
  });

  it('asks for register when the directory holds no inbox', async () => {
    const account = createAccountRegistry({ configInputs: { env: {} }, log: silentLogger }).open(
      await tempCredentialsDir(),
    );
    const error = (await account.capability().catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('credentials_missing');
    expect(error.next).toEqual({ operation: 'register' });
    // Input names are marked for the doors to spell (--credentials-dir, credentials_dir): test/unit/render/next-wording.test.ts.
    expect(error.hint).toBe(
      "Call register with a ⟦username⟧ and the operator's ⟦watch⟧ choice first (or give the ⟦credentials_dir⟧ of an existing inbox).",
    );
  });

  it('applies concurrent state updates one after another without losing any', async () => {
    const dir = await withCredentials();
    const registry = createAccountRegistry({ configInputs: { env: {} }, log: silentLogger });
    const [a, b] = [
      registry.open(dir),
      createAccountRegistry({ configInputs: { env: {} }, log: silentLogger }).open(dir),
    ];
    const bump = (s: { listNewState?: string }) => ({ ...s, listNewState: String(Number(s.listNewState ?? '0') + 1) });
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).updateState(bump)));
    expect((await a.readState()).listNewState).toBe('10');
  });

  it('reveals the apiKey only through revealApiKey', async () => {
    const dir = await withCredentials();
    const account = createAccountRegistry({ configInputs: { env: {} }, log: silentLogger }).open(dir);
    expect(await account.revealApiKey()).toBe(stored.apiKey);
  });
});
