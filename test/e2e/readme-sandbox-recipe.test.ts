import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { noCrontab, repoBin, runShell } from '../helpers/run-cli.js';

/**
 * The README's "Test your agent against the sandbox", run as written: its fenced commands, in
 * order, in a temp project with a temp HOME, `agent-mailbox` standing for the checkout's entry as
 * the README's Install section defines it. The only change: the sandbox's proof-of-work difficulty
 * is 2 instead of 7, for speed. Ports are free ones (the sandbox's default).
 */
const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
const section = /^## Test your agent against the sandbox\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trimEnd());

const home = await mkdtemp(join(tmpdir(), 'readme-recipe-'));
const project = join(home, 'project');
await mkdir(project);
// The Install section's alias, as typed in the checkout ($PWD there is the checkout's root).
const aliasLine = /^alias agent-mailbox="node \$PWD\/bin\/agent-mailbox\.js".*$/m.exec(readme)?.[0] ?? '';
const prelude = aliasLine.replace(/#.*$/, '').replace('$PWD', dirname(dirname(repoBin)));
const env = { HOME: home, XDG_CONFIG_HOME: '', AGENT_MAILBOX_CRONTAB: noCrontab };
let sandbox: ChildProcess | undefined;

afterAll(async () => {
  // The sandbox runs under its own process group: end that group (only what this test started).
  if (sandbox?.pid !== undefined && sandbox.exitCode === null) {
    // 'close': sh has exited and every process holding its stdout (the sandbox) has let go of it.
    const exited = new Promise((resolve) => sandbox!.once('close', resolve));
    process.kill(-sandbox.pid, 'SIGTERM');
    await exited;
  }
  await rm(home, { recursive: true, force: true });
});

/** Starts the first block (the sandbox) and resolves with its banner once it says it is running. */
function startSandbox(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `${prelude}\n${command} --difficulty 2`], {
      cwd: project,
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    sandbox = child;
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (stdout.includes('Press Ctrl+C to stop.')) resolve(stdout);
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the sandbox ended (${code}) before it was ready: ${stderr}`)));
  });
}

/** Runs commands in the recipe's second terminal: the checkout's entry as `agent-mailbox`, the sandbox's variables loaded. */
async function terminal(commands: string, load: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return runShell(`set -e\n${prelude}\n${load}\n${commands}`, env, project);
}

describe("the README's sandbox recipe", () => {
  it("starts the sandbox, registers the agent in the sandbox's own directory, delivers mail over SMTP, answers it and shows the answer in the outbox", async () => {
    expect(aliasLine).not.toBe('');
    expect(blocks).toHaveLength(5);
    const [start, registerBlock, deliver, agent, outbox] = blocks as [string, string, string, string, string];
    expect(start).toBe('agent-mailbox sandbox --data-dir ./sandbox-data');
    const banner = await startSandbox(start);
    expect(banner).toContain(`. ${join(project, 'sandbox-data', 'client.env')}`);

    // Block 2 loads the variables; every later block runs in that same terminal.
    const load = registerBlock.split('\n')[0]!;
    expect(load).toBe('. ./sandbox-data/client.env');
    const registered = await terminal(registerBlock, '');
    expect(registered.code, registered.stderr).toBe(0);
    expect(JSON.parse(registered.stdout)).toMatchObject({
      mode: 'signup',
      inbox: 'my-agent-01@agent-mailbox.test',
      credentialsDir: join(project, 'sandbox-data', 'credentials'),
    });
    expect(existsSync(join(home, '.config', 'agent-mailbox', 'credentials.json'))).toBe(false);

    const delivered = await terminal(deliver, load);
    expect(delivered.code, delivered.stderr).toBe(0);

    const [wait, reply] = agent.split('\n') as [string, string];
    const waited = await terminal(wait, load);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/^OK: 1 new message from others/);
    expect(waited.stdout).toContain('Subject: The report');
    const id = /^1\. (\S+) · /m.exec(waited.stdout)?.[1];
    expect(id).toBeDefined();
    expect(reply).toContain('<id from the listing>');
    const replied = await terminal(reply.replace('<id from the listing>', id!), load);
    expect(replied.code, replied.stderr).toBe(0);
    expect(replied.stdout).toMatch(/^OK: /);

    const shown = await terminal(outbox, load);
    expect(shown.code, shown.stderr).toBe(0);
    const sent = JSON.parse(shown.stdout) as { from: string; to: string[]; subject: string }[];
    expect(sent).toEqual([
      expect.objectContaining({
        from: 'my-agent-01@agent-mailbox.test',
        to: ['ana@example.org'],
        subject: 'Re: The report',
      }),
    ]);
  });
});
