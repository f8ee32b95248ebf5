import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CredentialStore } from '../../../src/credentials/credential-store.js';
import { MailboxError } from '../../../src/errors.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

const alice = {
  apiKey: 'ak_alice_0123456789abcdef',
  inboxId: 'alice',
  inbox: 'alice@agent-mailbox.test',
  watch: 'on-demand' as const,
};
const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('CredentialStore', () => {
  it('creates the directory 0700 and every file 0600', async () => {
    const dir = await tempCredentialsDir();
    const store = new CredentialStore(dir);
    await store.writeCredentials(alice);
    await store.writeToken('session', 'aaa.bbb.ccc');
    await store.writeState({ listNewState: 's1' });
    expect(await mode(dir)).toBe(0o700);
    for (const file of ['credentials.json', 'session.jwt', 'state.json'])
      expect(await mode(join(dir, file))).toBe(0o600);
    expect(await store.readCredentials()).toEqual(alice);
    expect(await store.readToken('session')).toBe('aaa.bbb.ccc');
  });

  it('tightens an existing directory and files that are too open', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'credentials.json'), JSON.stringify(alice), { mode: 0o644 });
    const store = new CredentialStore(dir);
    expect((await store.readCredentials())?.apiKey).toBe(alice.apiKey);
    expect(await mode(join(dir, 'credentials.json'))).toBe(0o600);
    expect(await mode(dir)).toBe(0o700);
  });

  it('reports a corrupt credentials.json with its path and leaves it untouched', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true });
    const path = join(dir, 'credentials.json');
    await writeFile(path, '{"apiKey": "ak_half', { mode: 0o600 });
    const store = new CredentialStore(dir);
    const error = (await store.readCredentials().catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('credentials_corrupt');
    expect(error.message).toContain(path);
    expect(error.hint).toMatch(/^Restore it from a credentials\.json\.bak-\* file/);
    await expect(store.writeCredentials(alice)).rejects.toMatchObject({ code: 'credentials_corrupt' });
    expect(await readFile(path, 'utf8')).toBe('{"apiKey": "ak_half');
  });

  it("refuses to replace one inbox's credentials with another's, leading with the loss", async () => {
    const dir = await tempCredentialsDir();
    const store = new CredentialStore(dir);
    await store.writeCredentials(alice);
    const error = (await store
      .writeCredentials({ apiKey: 'ak_bob_0123456789abcdef', inboxId: 'bobby' })
      .catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('credentials_exist');
    expect(error.message).toMatch(
      /^Refused: replacing the credentials in .* would lose access to the inbox alice@agent-mailbox\.test forever/,
    );
    expect(error.message).not.toContain(alice.apiKey);
    expect((await store.readCredentials())?.apiKey).toBe(alice.apiKey);
  });

  it('keeps a timestamped backup before rewriting credentials.json', async () => {
    const dir = await tempCredentialsDir();
    const store = new CredentialStore(dir);
    await store.writeCredentials(alice);
    await store.writeCredentials(alice); // unchanged: no backup needed
    expect((await readdir(dir)).filter((f) => f.startsWith('credentials.json.bak-'))).toHaveLength(0);
    await store.writeCredentials({ ...alice, watch: 'scheduled' });
    const backups = (await readdir(dir)).filter((f) => f.startsWith('credentials.json.bak-'));
    expect(backups).toHaveLength(1);
    expect(JSON.parse(await readFile(join(dir, backups[0]!), 'utf8'))).toMatchObject({ watch: 'on-demand' });
    expect(await mode(join(dir, backups[0]!))).toBe(0o600);
    expect((await store.readCredentials())?.watch).toBe('scheduled');
  });

  it('keeps unknown fields written by other clients', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'credentials.json'), JSON.stringify({ ...alice, futureField: 7 }));
    const store = new CredentialStore(dir);
    const stored = await store.readCredentials();
    await store.writeCredentials({ ...stored!, watch: 'scheduled' });
    expect(JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8'))).toMatchObject({ futureField: 7 });
  });

  it('treats an unreadable token file as absent, since tokens are renewable', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'session.jwt'), 'garbage');
    expect(await new CredentialStore(dir).readToken('session')).toBeUndefined();
  });

  it('hands back one frozen state while state.json is unchanged, and what another writer stored once it changes', async () => {
    const dir = await tempCredentialsDir();
    const reader = new CredentialStore(dir);
    const writer = new CredentialStore(dir);
    await writer.writeState({
      listNewState: 's1',
      session: {
        sessionUrl: 'http://x/s',
        apiUrl: 'http://x/api',
        uploadUrl: 'http://x/u',
        downloadUrl: 'http://x/d',
        accountId: 'a',
        capabilities: [],
        fetchedAt: '2026-01-01T00:00:00Z',
      },
    });
    const first = await reader.readState();
    expect(await reader.readState()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.session)).toBe(true);
    expect(() => ((first as { listNewState?: string }).listNewState = 'changed')).toThrow(TypeError);
    await writer.writeState({ ...first, listNewState: 's2' });
    expect((await reader.readState()).listNewState).toBe('s2');
  });

  it('reports a corrupt state.json and says deleting it is safe', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'state.json'), '[1,2');
    const error = (await new CredentialStore(dir).readState().catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('credentials_corrupt');
    expect(error.hint).toBe(
      'This file holds only caches and cursors: fix it or delete it, then run the command again.',
    );
  });

  it('leaves a parseable credentials.json with the apiKey intact when a writer is killed mid-write', async () => {
    const builtStore = fileURLToPath(new URL('../../../dist/credentials/credential-store.js', import.meta.url));
    expect(existsSync(builtStore), 'run `npx tsc -p tsconfig.json` (npm test builds first)').toBe(true);
    const dir = await tempCredentialsDir();
    await new CredentialStore(dir).writeCredentials(alice);
    // The child rewrites a large credentials.json as fast as it can, so the kill lands mid-write.
    const script = `
      const { CredentialStore } = await import(${JSON.stringify(builtStore)});
      const store = new CredentialStore(${JSON.stringify(dir)});
      const base = ${JSON.stringify(alice)};
      for (let i = 0; ; i += 1) {
        await store.writeCredentials({ ...base, padding: String(i).repeat(100000) });
        process.stdout.write('w\\n');
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let writes = 0;
    child.stdout.on('data', (chunk: Buffer) => (writes += chunk.toString().split('\n').length - 1));
    const deadline = Date.now() + 20_000;
    while (writes < 10 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(writes).toBeGreaterThanOrEqual(10);
    const stored = await new CredentialStore(dir).readCredentials();
    expect(stored?.apiKey).toBe(alice.apiKey);
    expect(stored?.inboxId).toBe('alice');
  });
});
