import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfter } from '../../sandbox/test/helpers/clean-up-after.js';
import {
  connectDirectory,
  expireAccessTokens,
  oauthCliEnv,
  refreshDirectly,
  rewriteGrant,
  startOAuthSandbox,
  storedGrant,
} from '../helpers/oauth-directory.js';
import { builtCli, noCrontab, runCli } from '../helpers/run-cli.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';

// Processes that share one connected account renew its access token under the directory lock, so
// the rotating refresh token is presented once (spec §3: a second presentation revokes the grant).

const sandbox = await startOAuthSandbox();
const env = oauthCliEnv(sandbox);

async function connected(): Promise<string> {
  const dir = await tempCredentialsDir();
  await connectDirectory(sandbox, dir);
  await expireAccessTokens(dir);
  return dir;
}

/** A token endpoint in front of the sandbox's that lets the test decide what happens to each refresh. */
async function tokenProxy(
  onRefresh: (forward: () => Promise<{ status: number; body: string }>, res: ServerResponse) => void,
): Promise<string> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const forward = async (): Promise<{ status: number; body: string }> => {
        const answer = await fetch(`${sandbox.authUrl}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        return { status: answer.status, body: await answer.text() };
      };
      onRefresh(forward, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanUpAfter(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`;
}

function spawnCli(args: string[]): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [builtCli, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, AGENT_MAILBOX_CRONTAB: noCrontab, ...env },
    stdio: 'ignore',
  });
  cleanUpAfter(() => void child.kill('SIGKILL'));
  return { child, exited: new Promise((resolve) => child.on('close', (code) => resolve(code))) };
}

describe('renewal across processes', () => {
  it('ten CLI processes that all need a new access token at once renew it once, and the grant survives', async () => {
    const dir = await connected();
    const runs = await Promise.all(
      Array.from({ length: 10 }, () =>
        runCli(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir, '--json'], { env }),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(runs.map((run) => (run.json as { inbox: string }).inbox)).toEqual(
      Array(10).fill('ada-inbox@agent-mailbox.test'),
    );
    expect((await storedGrant(dir))['generation']).toBe(2);
    expect((await refreshDirectly(sandbox, dir)).status).toBe(200);
  });

  it('keeps the grant when a process is killed while its refresh has not reached the service', async () => {
    const dir = await connected();
    let arrived: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (arrived = resolve));
    // The request arrives and is never forwarded: the service does not see it.
    const endpoint = await tokenProxy(() => arrived());
    await rewriteGrant(dir, (grant) => ({ ...grant, server: { ...grant['server'], token_endpoint: endpoint } }));
    const before = await storedGrant(dir);
    const { child, exited } = spawnCli([
      'jmap_request',
      '--ops-file',
      'list_inbox',
      '--credentials-dir',
      dir,
      '--json',
    ]);
    await held;
    child.kill('SIGKILL');
    await exited;
    expect(await storedGrant(dir)).toEqual(before);
    // The journal says a refresh with this token went out unanswered.
    expect(JSON.parse(await readFile(join(dir, 'renewal-pending.json'), 'utf8'))).toMatchObject({ pid: child.pid });
    await rewriteGrant(dir, (grant) => ({
      ...grant,
      server: { ...grant['server'], token_endpoint: `${sandbox.authUrl}/oauth/token` },
    }));
    const after = await runCli(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir, '--json'], {
      env,
    });
    expect(after.code, after.stderr).toBe(0);
    expect((await storedGrant(dir))['generation']).toBe(2);
    await expect(stat(join(dir, 'renewal-pending.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('says exactly what happened when a process was killed after the service rotated the token and before it stored the answer', async () => {
    const dir = await connected();
    let answered: () => void = () => undefined;
    const rotated = new Promise<void>((resolve) => (answered = resolve));
    // The service rotates; its answer never reaches the client, which is killed meanwhile.
    const endpoint = await tokenProxy((forward) => void forward().then(() => answered()));
    await rewriteGrant(dir, (grant) => ({ ...grant, server: { ...grant['server'], token_endpoint: endpoint } }));
    const { child, exited } = spawnCli([
      'jmap_request',
      '--ops-file',
      'list_inbox',
      '--credentials-dir',
      dir,
      '--json',
    ]);
    await rotated;
    child.kill('SIGKILL');
    await exited;
    await rewriteGrant(dir, (grant) => ({
      ...grant,
      server: { ...grant['server'], token_endpoint: `${sandbox.authUrl}/oauth/token` },
    }));
    const after = await runCli(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir, '--json'], {
      env,
    });
    expect(after.code).toBe(1);
    const error = (after.json as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe('grant_revoked');
    expect(error.message).toMatch(
      new RegExp(
        `An earlier renewal \\(pid ${child.pid}, [^)]+\\) was interrupted after sending this refresh token and before its successor was stored`,
      ),
    );
    expect(error.hint).toContain(`agent-mailbox connect --credentials-dir ${dir}`);
  });
});
