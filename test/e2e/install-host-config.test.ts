import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli, noCrontab } from '../helpers/run-cli.js';

/**
 * The README's host configs for a checkout and for `npm pack`'s tarball, as a host would run them:
 * `command` + `args` from the JSON, a bare environment, then initialize and tools/list.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
let work: string;
let unpacked: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agent-mailbox-install-'));
  // npm pack writes what `files` in package.json ships; unpacked with no node_modules around it.
  await run('npm', ['pack', '--pack-destination', work, '--ignore-scripts', '--silent'], {
    cwd: root,
    env: { ...process.env, npm_config_offline: 'true' },
  });
  const tarball = (await readdir(work)).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  await run('tar', ['-xzf', join(work, tarball), '-C', work]);
  unpacked = join(work, 'package');
}, 120_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface HostConfig {
  command: string;
  args: string[];
}

async function listToolsWith(config: HostConfig): Promise<{ tools: string[]; version: string | undefined }> {
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: work,
      AGENT_MAILBOX_CREDENTIALS_DIR: join(work, 'credentials'),
      AGENT_MAILBOX_CRONTAB: noCrontab,
    },
    cwd: work,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'install-test', version: '0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    return { tools: tools.map((t) => t.name).sort(), version: client.getServerVersion()?.version };
  } finally {
    await client.close();
  }
}

describe('host configs outside the npm registry', () => {
  it('the unpacked tarball ships a self-contained bundle (no node_modules needed)', async () => {
    expect((await readdir(unpacked)).sort()).toEqual(
      expect.arrayContaining(['bin', 'dist', 'package.json', 'presets', 'skill']),
    );
    expect(await readdir(unpacked)).not.toContain('node_modules');
  });

  it('{"command": "node", "args": ["<unpacked tarball>/bin/agent-mailbox.js", "mcp"]} starts the server and lists the tools', async () => {
    const { tools, version } = await listToolsWith({
      command: 'node',
      args: [join(unpacked, 'bin', 'agent-mailbox.js'), 'mcp'],
    });
    expect(tools).toEqual(['help', 'jmap_request', 'list_inboxes', 'register', 'watch_status']);
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
  }, 60_000);

  it('{"command": "node", "args": ["<checkout>/bin/agent-mailbox.js", "mcp"]} starts the server and lists the tools', async () => {
    const { tools } = await listToolsWith({ command: 'node', args: [join(root, 'bin', 'agent-mailbox.js'), 'mcp'] });
    expect(tools).toEqual(['help', 'jmap_request', 'list_inboxes', 'register', 'watch_status']);
  }, 60_000);

  it('the skill script in the tarball is an MCP server too ({"args": ["<skill>/scripts/agent-mailbox.mjs", "mcp"]})', async () => {
    const { tools } = await listToolsWith({
      command: 'node',
      args: [join(unpacked, 'skill', 'scripts', 'agent-mailbox.mjs'), 'mcp'],
    });
    expect(tools).toEqual(['help', 'jmap_request', 'list_inboxes', 'register', 'watch_status']);
  }, 60_000);

  it('a bare `mcp` (served without building the CLI) refuses a bad setting exactly as the CLI path does', async () => {
    const start = (args: string[]) =>
      run(process.execPath, [builtCli, ...args], {
        env: { PATH: process.env.PATH, HOME: work, AGENT_MAILBOX_TIMEOUT_MS: 'soon' },
      }).then(
        () => ({ code: 0, stdout: '', stderr: '' }),
        (error: { code: number; stdout: string; stderr: string }) => ({
          code: error.code,
          stdout: error.stdout,
          stderr: error.stderr,
        }),
      );
    const direct = await start(['mcp']);
    const viaCli = await start(['mcp', '--tool-deadline-ms', '50000']);
    expect(direct.code).toBe(2);
    expect(direct.stdout).toBe('');
    expect(direct.stderr).toMatch(/^agent-mailbox mcp: .*AGENT_MAILBOX_TIMEOUT_MS/);
    expect(direct).toEqual(viaCli);
  });
});
