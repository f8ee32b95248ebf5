import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config.js';
import { checkRegisteredOrigin } from '../../../src/credentials/check-endpoints.js';
import { MailboxError } from '../../../src/errors.js';
import { exitCodeOf } from '../../../src/render/render-error.js';
import { sandboxSettingsFormat } from '../../../src/wire-constants.js';

const work = await mkdtemp(join(tmpdir(), 'agent-mailbox-origin-'));
afterAll(() => rm(work, { recursive: true, force: true }));

const local = { authUrl: 'http://127.0.0.1:41001', apiUrl: 'http://127.0.0.1:41002' };
const live = { authUrl: 'https://auth.atomicmail.ai', apiUrl: 'https://api.atomicmail.ai' };

/** A data directory as a sandbox leaves it: sandbox.json naming DATA_DIR/credentials. */
async function sandboxDataDir(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const dataDir = join(work, name);
  await mkdir(dataDir, { recursive: true });
  const file = {
    format: sandboxSettingsFormat,
    ...local,
    scryptSalt: 'sandbox-salt',
    inboxDomain: 'agent-mailbox.test',
    authservId: 'agent-mailbox.test',
    credentialsDir: join(dataDir, 'credentials'),
    mcpUrl: 'http://127.0.0.1:41003',
    smtpPort: 41004,
    ...extra,
  };
  await writeFile(join(dataDir, 'sandbox.json'), JSON.stringify(file));
  return dataDir;
}

function refusal(run: () => void): MailboxError | undefined {
  try {
    run();
  } catch (error) {
    return error as MailboxError;
  }
  return undefined;
}

describe('--sandbox DATA_DIR', () => {
  it('takes every client setting from the sandbox.json there, over the environment and credentials.json', async () => {
    const dataDir = await sandboxDataDir('settings');
    const config = resolveConfig({
      flags: { sandbox: dataDir },
      env: { AGENT_MAILBOX_API_URL: live.apiUrl, AGENT_MAILBOX_CREDENTIALS_DIR: '/elsewhere' },
      credentials: { authUrl: live.authUrl, scryptSalt: 'live-salt' },
    });
    expect(config).toMatchObject({
      ...local,
      scryptSalt: 'sandbox-salt',
      inboxDomain: 'agent-mailbox.test',
      authservId: 'agent-mailbox.test',
      credentialsDir: join(dataDir, 'credentials'),
    });
    expect(config.sources).toMatchObject({ authUrl: 'sandbox', apiUrl: 'sandbox', credentialsDir: 'sandbox' });
  });

  it('lets a flag of one setting win over the sandbox file, and reads the variable AGENT_MAILBOX_SANDBOX too', async () => {
    const dataDir = await sandboxDataDir('flag-wins');
    const config = resolveConfig({ flags: { credentialsDir: '/chosen' }, env: { AGENT_MAILBOX_SANDBOX: dataDir } });
    expect(config.credentialsDir).toBe('/chosen');
    expect(config.apiUrl).toBe(local.apiUrl);
  });

  it('refuses a folder without sandbox.json, one of another format and one missing a field, saying how to make one (exit 2)', async () => {
    const cases = [
      join(work, 'absent'),
      await sandboxDataDir('old-format', { format: 'agent-mailbox-sandbox-settings/0' }),
      await sandboxDataDir('no-salt', { scryptSalt: '' }),
      await sandboxDataDir('relative', { credentialsDir: 'credentials' }),
    ];
    for (const dataDir of cases) {
      const error = refusal(() => resolveConfig({ flags: { sandbox: dataDir } }));
      expect(error?.code, dataDir).toBe('sandbox_settings_missing');
      expect(error?.hint).toContain(`agent-mailbox sandbox --data-dir ${dataDir}`);
      expect(exitCodeOf(error!)).toBe(2);
    }
  });
});

describe('a credentials directory stays on the side it was registered on', () => {
  it('refuses a sandbox-registered directory any host off this machine, whatever the source', () => {
    for (const target of [live, { ...local, apiUrl: live.apiUrl }, { ...local, authUrl: 'http://10.0.0.1:1' }]) {
      const error = refusal(() => checkRegisteredOrigin(target, join(work, 'any'), local));
      expect(error?.code, JSON.stringify(target)).toBe('credentials_wrong_service');
      expect(error?.message).toContain('belongs to a local sandbox (http://127.0.0.1:41002)');
      expect(exitCodeOf(error!)).toBe(2);
    }
  });

  it('refuses a directory of the service any loopback host, so its apiKey never goes to a local port', () => {
    for (const target of [local, { ...live, authUrl: 'http://localhost:9' }, { ...live, apiUrl: 'http://[::1]:9' }]) {
      const error = refusal(() => checkRegisteredOrigin(target, join(work, 'real'), live));
      expect(error?.code, JSON.stringify(target)).toBe('credentials_wrong_service');
      expect(error?.message).toContain('holds an inbox of the service (https://api.atomicmail.ai)');
    }
  });

  it("refuses a sandbox's own credentials directory, empty yet, to the service, naming the --sandbox that fits", async () => {
    const dataDir = await sandboxDataDir('empty');
    const error = refusal(() => checkRegisteredOrigin(live, join(dataDir, 'credentials'), undefined));
    expect(error?.code).toBe('credentials_wrong_service');
    expect(error?.hint).toContain(`--sandbox ${dataDir}`);
    // A broken sandbox.json still marks the directory as the sandbox's.
    const broken = await sandboxDataDir('broken', { format: 'nonsense' });
    expect(refusal(() => checkRegisteredOrigin(live, join(broken, 'credentials'), undefined))?.code).toBe(
      'credentials_wrong_service',
    );
  });

  it('passes each side its own hosts, and a directory nobody registered or made', async () => {
    const dataDir = await sandboxDataDir('passes');
    expect(() => checkRegisteredOrigin(local, join(work, 'x'), local)).not.toThrow();
    expect(() => checkRegisteredOrigin(live, join(work, 'x'), live)).not.toThrow();
    expect(() => checkRegisteredOrigin(local, join(dataDir, 'credentials'), undefined)).not.toThrow();
    for (const target of [local, live])
      expect(() => checkRegisteredOrigin(target, join(work, 'credentials'), undefined)).not.toThrow();
    // A folder named credentials beside a sandbox.json naming another directory is not that sandbox's.
    const other = await sandboxDataDir('other', { credentialsDir: '/somewhere/else' });
    expect(() => checkRegisteredOrigin(live, join(other, 'credentials'), undefined)).not.toThrow();
    // The inbox's own record decides over the folder it sits in.
    expect(() => checkRegisteredOrigin(live, join(dataDir, 'credentials'), live)).not.toThrow();
  });
});
