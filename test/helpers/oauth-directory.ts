import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectGrant, type ConnectOutcome, type ConnectRequest } from '../../src/auth/oauth/connect-grant.js';
import { resolveConfig } from '../../src/config.js';
import { Deadline } from '../../src/gate/deadline.js';
import { silentLogger } from '../../src/log.js';
import { sandboxClientEnv } from '../../sandbox/src/sandbox-command.js';
import type { RunningSandbox, SandboxOptions } from '../../sandbox/src/start-sandbox.js';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';

/** The people of the OAuth tests: Ada owns an inbox on the sandbox's domain and one on a custom domain. */
export const ada = { person: 'ada', inboxes: ['ada-inbox', 'ops@acme.test'] };

/** A sandbox whose authorization approves at once for `people` (the first inbox of each is the default). */
export function startOAuthSandbox(
  people: Array<{ person: string; inboxes: string[] }> = [ada],
  options: SandboxOptions = {},
): Promise<RunningSandbox> {
  return startTestSandbox({
    ...options,
    oauth: { registrationRateLimit: false, autoApprove: people, ...options.oauth },
  });
}

/**
 * A stand-in for the person's browser with an auto-approving sandbox: it requests the authorization
 * URL, takes the redirect the sandbox answers with, lets `tamper` change it, and follows it to the
 * client's loopback listener, as a browser would.
 */
export function autoApproveBrowser(
  tamper: (callback: URL) => URL = (callback) => callback,
  seen: string[] = [],
): (url: string) => Promise<void> {
  return async (url) => {
    seen.push(url);
    const answer = await fetch(url, { redirect: 'manual' });
    const location = answer.headers.get('location');
    await answer.text();
    if (!location) throw new Error(`authorization answered ${answer.status} without a redirect`);
    void fetch(tamper(new URL(location)))
      .then((page) => page.text())
      .catch(() => undefined);
  };
}

/** Connects `dir` in this process with the auto-approving sandbox; returns the outcome. */
export async function connectDirectory(
  sandbox: RunningSandbox,
  dir: string,
  options: Partial<Pick<ConnectRequest, 'scope' | 'loginHint' | 'openBrowser' | 'resource' | 'waitMs'>> = {},
): Promise<ConnectOutcome> {
  const config = resolveConfig({ flags: { credentialsDir: dir }, env: sandboxClientEnv(sandbox) });
  return connectGrant({
    dir,
    config,
    scope: options.scope ?? 'mail.read mail.send',
    resource: options.resource ?? `${config.apiUrl}/jmap`,
    ...(options.loginHint !== undefined ? { loginHint: options.loginHint } : {}),
    openBrowser: options.openBrowser ?? autoApproveBrowser(),
    announce: () => undefined,
    waitMs: options.waitMs ?? 10_000,
    signal: new AbortController().signal,
    deadline: Deadline.start({ timeoutMs: 10_000 }),
    log: silentLogger,
  });
}

/** oauth.json of a connected directory, as stored. */
export async function storedGrant(dir: string): Promise<Record<string, any>> {
  return JSON.parse(await readFile(join(dir, 'oauth.json'), 'utf8')) as Record<string, any>;
}

/** Rewrites oauth.json (tests point an endpoint at a fault server or a proxy). */
export async function rewriteGrant(
  dir: string,
  change: (grant: Record<string, any>) => Record<string, any>,
): Promise<void> {
  await writeFile(join(dir, 'oauth.json'), JSON.stringify(change(await storedGrant(dir)), null, 2), { mode: 0o600 });
}

/** Marks every cached access token as expired, so the next use must renew. */
export async function expireAccessTokens(dir: string): Promise<void> {
  const path = join(dir, 'access-tokens.json');
  const cache = JSON.parse(await readFile(path, 'utf8')) as { tokens: Array<{ expiresAt: number }> };
  for (const token of cache.tokens) token.expiresAt = 0;
  await writeFile(path, JSON.stringify(cache), { mode: 0o600 });
}

/** POST /oauth/token with the stored refresh token, as another client would: returns status and body. */
export async function refreshDirectly(
  sandbox: RunningSandbox,
  dir: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const grant = await storedGrant(dir);
  const response = await fetch(`${sandbox.authUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: String(grant['refreshToken']),
      client_id: String(grant['clientId']),
      ...extra,
    }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The environment a CLI needs to use the sandbox. */
export function oauthCliEnv(sandbox: RunningSandbox, extra: Record<string, string> = {}): Record<string, string> {
  return { ...sandboxClientEnv(sandbox), ...extra };
}
