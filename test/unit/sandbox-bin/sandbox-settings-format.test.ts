import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readSandboxSettings } from '../../../src/sandbox-settings.js';
import { sandboxSettingsFile, sandboxSettingsFormat } from '../../../src/wire-constants.js';
import { runSandboxCommandUntilReady } from '../../helpers/sandbox-command-run.js';

// sandbox.json is the one file the two packages exchange: the sandbox writes it into its data
// directory, the client's --sandbox DATA_DIR reads it. Written by the sandbox's own command here,
// read by the client's own reader, in the format both sides name.
describe('sandbox.json between the packages', () => {
  it("what the sandbox writes is what the client reads: the hosts, salt, domain, authserv-id and the sandbox's credentials directory", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-mailbox-settings-'));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const run = await runSandboxCommandUntilReady({ dataDir, difficulty: 2, domain: 'settings.test' });
    try {
      const ready = run.ready as typeof run.ready & { salt: string; authservId: string };
      const written = JSON.parse(await readFile(join(dataDir, sandboxSettingsFile), 'utf8')) as { format: string };
      expect(written.format).toBe(sandboxSettingsFormat);
      expect(readSandboxSettings(dataDir)).toEqual({
        authUrl: ready.authUrl,
        apiUrl: ready.apiUrl,
        scryptSalt: ready.salt,
        inboxDomain: 'settings.test',
        authservId: ready.authservId,
        credentialsDir: join(dataDir, 'credentials'),
      });
    } finally {
      expect(await run.stop()).toBe(0);
    }
  });
});
