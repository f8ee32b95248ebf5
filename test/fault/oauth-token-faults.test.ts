import { cp, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  connectDirectory,
  expireAccessTokens,
  oauthCliEnv,
  refreshDirectly,
  rewriteGrant,
  startOAuthSandbox,
  storedGrant,
} from '../helpers/oauth-directory.js';
import { freshDir, maxMs, maxPeakMb, timeoutMs } from './fault-case.js';
import { hang, httpFault, resetMidBody, streamForever, type FaultServer } from './fault-servers.js';
import { findLeak, runCliMeasured, runMcpMeasured } from './run-measured.js';

// A token endpoint that misbehaves while a connected account renews its access token: every read
// has its deadline and size cap, nothing a server echoes (refresh token, access token, client
// secret) comes back out, and the stored grant is never lost to a fault on the wire.

const sandbox = await startOAuthSandbox();
const env = {
  ...oauthCliEnv(sandbox),
  AGENT_MAILBOX_TIMEOUT_MS: String(timeoutMs),
  AGENT_MAILBOX_CRONTAB: '/nonexistent/crontab',
};
const connected = await freshDir();
await connectDirectory(sandbox, connected);
const { refreshToken } = await storedGrant(connected);
const cachedAccessToken =
  (JSON.parse(await readFile(join(connected, 'access-tokens.json'), 'utf8')) as { tokens: Array<{ token: string }> })
    .tokens[0]?.token ?? '';

/** A copy of the connected directory whose access token must be renewed at `endpoint`. */
async function needingRenewalAt(endpoint: string): Promise<string> {
  const dir = await freshDir();
  await cp(connected, dir, { recursive: true });
  await expireAccessTokens(dir);
  await rewriteGrant(dir, (grant) => ({ ...grant, server: { ...grant['server'], token_endpoint: endpoint } }));
  return dir;
}

/** Both doors list the inbox through `fault` as the token endpoint; each keeps its promises. */
async function expectBothDoors(fault: FaultServer, code: RegExp, says: RegExp): Promise<string[]> {
  const [cliDir, mcpDir] = await Promise.all([
    needingRenewalAt(`${fault.url}/oauth/token`),
    needingRenewalAt(`${fault.url}/oauth/token`),
  ]);
  const before = await storedGrant(cliDir);
  const [cli, mcp] = await Promise.all([
    runCliMeasured(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', cliDir], env),
    runMcpMeasured('jmap_request', { ops_file: 'list_inbox', credentials_dir: mcpDir }, env),
  ]);
  const secrets = [String(refreshToken), cachedAccessToken, ...fault.seen];
  const cliOut = `${cli.stdout}\n${cli.stderr}`;
  for (const [door, output, ms, peakMb] of [
    ['cli', cliOut, cli.ms, cli.peakMb],
    ['mcp', mcp.output, mcp.ms, mcp.peakMb],
  ] as const) {
    expect(ms, `${door} time`).toBeLessThan(maxMs);
    expect(peakMb, `${door} peak RSS`).toBeLessThan(maxPeakMb);
    expect(findLeak(output, secrets), `${door} leaked`).toBeUndefined();
    expect(output, `${door} leaked a refresh token's shape`).not.toMatch(/amr_[A-Za-z0-9_-]{6,}/);
  }
  expect(cli.code, cliOut).toBe(1);
  const error = (JSON.parse(cli.stdout) as { error: { code: string; message: string; hint: string } }).error;
  expect(error.code, cliOut).toMatch(code);
  expect(error.message).toMatch(says);
  expect(error.hint.length).toBeGreaterThan(10);
  expect(mcp.isError, mcp.text).toBe(true);
  expect(mcp.text).toMatch(says);
  // Whatever the fault, the stored grant is the one from before: nothing was rotated away.
  expect(await storedGrant(cliDir)).toEqual(before);
  return [cliDir, mcpDir];
}

describe('a token endpoint that breaks its promises, through the CLI and the MCP server', () => {
  it('never answers a refresh: the deadline fires, and the journal remembers the token went out', async () => {
    const fault = await hang();
    const [cliDir] = await expectBothDoors(fault, /^timeout$/, new RegExp(`within ${timeoutMs} ms`));
    expect(JSON.parse(await readFile(join(cliDir ?? '', 'renewal-pending.json'), 'utf8'))).toMatchObject({
      refreshTokenDigest: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    // A refresh that may have taken effect is never resent.
    expect(fault.hits()).toBe(2);
  });

  it('streams an answer forever: the size cap stops it', async () => {
    await expectBothDoors(await streamForever(), /^response_too_large$/, /exceeded the limit of \d+ bytes/);
  });

  it('resets the connection in the middle of its answer', async () => {
    await expectBothDoors(await resetMidBody(), /^network$/, /POST \/oauth\/token/);
  });

  it('echoes the refresh token, the client id and an access token in its error: all masked', async () => {
    const fault = await httpFault((_req, res, body) => {
      const presented = new URLSearchParams(body).get('refresh_token') ?? '';
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: 'invalid_request',
          error_description: `Refused ${presented} (piece ${presented.slice(6, 26)}), last access token ${cachedAccessToken} / ${cachedAccessToken.split('.')[1] ?? ''}; body was ${body}`,
        }),
      );
    });
    await expectBothDoors(fault, /^oauth_failed$/, /The renewal was refused by .*invalid_request/);
  });

  it('answers in a shape the client refuses, after rotating: the new refresh token was stored first and the grant lives on', async () => {
    // A proxy that forwards to the real token endpoint and spoils the answer it relays.
    const proxy = await httpFault((_req, res, body) => {
      void fetch(`${sandbox.authUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      }).then(async (answer) => {
        const json = (await answer.json()) as Record<string, unknown>;
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...json, token_type: 'mac' }));
      });
    });
    const dir = await needingRenewalAt(`${proxy.url}/oauth/token`);
    const before = await storedGrant(dir);
    const run = await runCliMeasured(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], env);
    expect(run.code).toBe(1);
    const after = await storedGrant(dir);
    expect(after['generation']).toBe(Number(before['generation']) + 1);
    expect(after['refreshToken']).not.toBe(before['refreshToken']);
    await expect(stat(join(dir, 'renewal-pending.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    // The stored token is the service's current one: the grant survives the broken answer.
    expect((await refreshDirectly(sandbox, dir)).status).toBe(200);
  });
});
