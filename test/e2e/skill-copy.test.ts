import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noCrontab } from '../helpers/run-cli.js';
import nodemailer from 'nodemailer';
import { pollUntil, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';

/**
 * "Install anywhere": the skill folder copied alone into a temp dir, with no checkout, no
 * node_modules and no agent-mailbox on PATH, runs SKILL.md's own example lines against the sandbox,
 * from the user's project directory as SKILL.md says (`<skill dir>` filled in), so relative paths
 * of files to attach are the project's.
 */

const skillDir = fileURLToPath(new URL('../../skill/', import.meta.url));
const sandbox = await startTestSandbox();
let home: string;
let copy: string;
let project: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'agent-mailbox-skill-'));
  copy = join(home, 'skills', 'agent-mailbox');
  await cp(skillDir, copy, { recursive: true });
  project = join(home, 'project');
  await mkdir(project);
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const script = 'node <skill dir>/scripts/agent-mailbox.mjs';

/** The example lines of SKILL.md (the copy's own), by the command they start with, with `<skill dir>` filled in. */
async function exampleLine(startsWith: string): Promise<string> {
  const text = await readFile(join(copy, 'SKILL.md'), 'utf8');
  const block = /Examples \(from the user's project directory\):\n\n```sh\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
  const line = block.split('\n').find((l) => l.startsWith(`${script} ${startsWith}`));
  if (!line) throw new Error(`SKILL.md has no example line starting with "${script} ${startsWith}"`);
  return line.replaceAll('<skill dir>', copy);
}

function runShell(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // PATH holds node's own folder and the system's, not this checkout's bins.
    const child = spawn('/bin/sh', ['-c', line], {
      cwd: project,
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

  it('runs help, register (proof of work in worker threads), list_inbox and a send with a relative attachment exactly as SKILL.md writes them', async () => {
    const help = await runShell(await exampleLine('help'));
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('# agent-mailbox: overview');

    const registerLine = await exampleLine('register');
    const register = await runShell(registerLine);
    expect(register.code, register.stderr).toBe(0);
    const registered = JSON.parse(register.stdout) as { mode: string; inbox: string; watchJob: { verify: string[] } };
    expect(registered.mode).toBe('signup');
    expect(registered.inbox).toBe(`my-agent-07@${sandbox.domain}`);
    // The commands it suggests are spelled the way this copy runs (no agent-mailbox on PATH; the
    // script outside the working directory, so by its absolute path), and work pasted.
    const verify = `node ${join(copy, 'scripts', 'agent-mailbox.mjs')} watch status --credentials-dir ${join(home, 'credentials')}`;
    expect(registered.watchJob.verify).toEqual([verify]);
    const status = await runShell(verify);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ installed: false });

    const list = await runShell(await exampleLine('jmap_request --ops-file list_inbox'));
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^OK: 2 responses/);
    expect(list.stdout).toContain('0 messages');

    // ./report.pdf is the project's file: the skill folder has none.
    await writeFile(join(project, 'report.pdf'), '%PDF-1.4 the report\n');
    const send = await runShell(await exampleLine('jmap_request --ops-file send_mail_blob_attachment'));
    expect(send.code, send.stderr).toBe(0);
    expect(send.stdout).toMatch(/^OK/);
    expect((await sandbox.outbox()).map((mail) => mail.to)).toContainEqual(['ana@example.com']);

    // The confusables table rides inside the script: a name spelt with a Cyrillic а and a one-dot
    // leader reads as paypal.com, which the listing says the sender is not.
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: sandbox.smtpPort, ignoreTLS: true });
    await transport
      .sendMail({
        from: '"P\u0430yp\u0430l\u2024com Support" <alerts@evil.test>',
        to: registered.inbox,
        subject: 'Your account',
        text: 'Please confirm.',
      })
      .finally(() => transport.close());
    const listed = await pollUntil(async () => {
      const again = await runShell(await exampleLine('jmap_request --ops-file list_inbox'));
      return again.stdout.includes('1 message') ? again : undefined;
    });
    expect(listed.stdout).toContain('name shows paypal.com');
  });

  it('the shell launcher beside the script runs it too, from the project', async () => {
    const topic = await runShell(`sh ${join(copy, 'scripts', 'agent-mailbox')} help presets`);
    expect(topic.code, topic.stderr).toBe(0);
    expect(topic.stdout).toContain('list_inbox');
  });
});
