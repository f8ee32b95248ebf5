import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noCrontab } from '../helpers/run-cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/**
 * Issue 14's "install anywhere": the skill folder copied alone into a temp dir, with no checkout,
 * no node_modules and no agent-mailbox on PATH, runs SKILL.md's own example lines against the sandbox.
 */

const skillDir = fileURLToPath(new URL('../../skill/', import.meta.url));
const sandbox = await startTestSandbox();
let home: string;
let copy: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'agent-mailbox-skill-'));
  copy = join(home, 'skills', 'agent-mailbox');
  await cp(skillDir, copy, { recursive: true });
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

/** The example lines of SKILL.md (the copy's own), by the command they start with. */
async function exampleLine(startsWith: string): Promise<string> {
  const text = await readFile(join(copy, 'SKILL.md'), 'utf8');
  const block = /Examples:\n\n```sh\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
  const line = block.split('\n').find((l) => l.startsWith(startsWith));
  if (!line) throw new Error(`SKILL.md has no example line starting with "${startsWith}"`);
  return line;
}

function runShell(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // PATH holds node's own folder and the system's, not this checkout's bins.
    const child = spawn('/bin/sh', ['-c', line], {
      cwd: copy,
      env: {
        PATH: `${join(process.execPath, '..')}:/usr/bin:/bin`,
        HOME: home,
        AGENT_MAILBOX_AUTH_URL: sandbox.authUrl,
        AGENT_MAILBOX_API_URL: sandbox.apiUrl,
        AGENT_MAILBOX_SCRYPT_SALT: sandbox.salt,
        AGENT_MAILBOX_INBOX_DOMAIN: sandbox.domain,
        AGENT_MAILBOX_CREDENTIALS_DIR: join(home, 'credentials'),
        AGENT_MAILBOX_CRONTAB: noCrontab,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('the skill folder copied on its own', () => {
  it('holds only the skill: SKILL.md, references and a single-file script', async () => {
    expect((await readdir(copy)).sort()).toEqual(['SKILL.md', 'references', 'scripts']);
    expect((await readdir(join(copy, 'scripts'))).sort()).toEqual(['agent-mailbox', 'agent-mailbox.mjs']);
  });

  it('runs help, register (proof of work in worker threads) and list_inbox exactly as SKILL.md writes them', async () => {
    const help = await runShell(await exampleLine('node scripts/agent-mailbox.mjs help'));
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('# agent-mailbox: overview');

    const registerLine = await exampleLine('node scripts/agent-mailbox.mjs register');
    const register = await runShell(registerLine);
    expect(register.code, register.stderr).toBe(0);
    const registered = JSON.parse(register.stdout) as { mode: string; inbox: string; watchJob: { verify: string[] } };
    expect(registered.mode).toBe('signup');
    expect(registered.inbox).toBe(`my-agent-07@${sandbox.domain}`);
    // The commands it suggests are spelled the way this folder runs them (no agent-mailbox on PATH), and work pasted.
    const verify = `node scripts/agent-mailbox.mjs watch status --credentials-dir ${join(home, 'credentials')}`;
    expect(registered.watchJob.verify).toEqual([verify]);
    const status = await runShell(verify);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ installed: false });

    const list = await runShell(await exampleLine('node scripts/agent-mailbox.mjs jmap_request --ops-file list_inbox'));
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^OK: 2 responses/);
    expect(list.stdout).toContain('0 messages');
  });

  it('the shell launcher beside the script runs it too', async () => {
    const topic = await runShell('sh scripts/agent-mailbox help presets');
    expect(topic.code, topic.stderr).toBe(0);
    expect(topic.stdout).toContain('list_inbox');
  });
});
