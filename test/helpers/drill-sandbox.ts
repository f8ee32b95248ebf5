import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUpAfter } from '../../sandbox/test/helpers/clean-up-after.js';
import { builtCli, noCrontab } from './run-cli.js';
import { pollUntil } from '../../sandbox/test/helpers/sandbox.js';

/** A sandbox started as the operator starts it (`agent-mailbox sandbox --data-dir`), so it writes client.env. */
export interface DrillSandbox {
  dataDir: string;
  apiUrl: string;
  /** The environment a spawned CLI gets: only PATH, HOME, a temp config dir and no crontab. */
  env: Record<string, string>;
}

export async function startDrillSandbox(options: { backend?: 'embedded' | 'cyrus' } = {}): Promise<DrillSandbox> {
  const root = await mkdtemp(join(tmpdir(), 'drill-test-'));
  const dataDir = join(root, 'data');
  // Cyrus's processes run as user cyrus: they must pass through the temp folder to the data directory,
  // which the sandbox opens from there on.
  if (options.backend === 'cyrus') await chmod(root, 0o711);
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? root,
    XDG_CONFIG_HOME: join(root, 'config'),
    AGENT_MAILBOX_CRONTAB: noCrontab,
  };
  const backend = options.backend === undefined ? [] : ['--backend', options.backend];
  const child = spawn(
    process.execPath,
    [builtCli, 'sandbox', '--data-dir', dataDir, '--difficulty', '2', ...backend, '--json'],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  cleanUpAfter(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(root, { recursive: true, force: true });
  });
  const line = await pollUntil(
    () => {
      if (child.exitCode !== null) throw new Error(`the sandbox exited early (${child.exitCode}): ${stderr}`);
      return stdout.includes('\n') ? stdout : undefined;
    },
    30_000,
    'the sandbox ready line',
  );
  const ready = JSON.parse(line) as { apiUrl: string };
  return { dataDir, apiUrl: ready.apiUrl, env };
}
