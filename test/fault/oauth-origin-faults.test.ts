import { describe, expect, it } from 'vitest';
import { wordInputs } from '../../src/render/describe-next.js';
import { connectGrant } from '../../src/auth/oauth/connect-grant.js';
import { createAccountRegistry } from '../../src/auth/create-account-registry.js';
import { resolveConfig } from '../../src/config.js';
import { MailboxError } from '../../src/errors.js';
import { Deadline } from '../../src/gate/deadline.js';
import { silentLogger } from '../../src/log.js';
import { sandboxClientEnv } from '../../sandbox/src/sandbox-command.js';
import {
  autoApproveBrowser,
  connectDirectory,
  expireAccessTokens,
  rewriteGrant,
  startOAuthSandbox,
  storedGrant,
} from '../helpers/oauth-directory.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';
import { elsewhere, everythingSent, front, redirectWhen, type FrontRule } from './origin-servers.js';

/**
 * The OAuth legs of where credentials go: metadata that names another origin for an endpoint that
 * is sent a secret, and a token endpoint or inbox list that redirects elsewhere. The second origin
 * receives nothing: no code, no refresh token, no client secret, no access token.
 */

const sandbox = await startOAuthSandbox();
const metadataPath = /^\/\.well-known\/oauth-authorization-server/;

function metadataNaming(field: string, other: string): FrontRule {
  return (req) =>
    req.method === 'GET' && metadataPath.test(req.url ?? '')
      ? { rewrite: (metadata) => ({ ...metadata, [field]: `${other}/oauth/elsewhere` }) }
      : undefined;
}

async function connectThrough(authUrl: string, allowedOrigins?: string): Promise<unknown> {
  const dir = await tempCredentialsDir();
  const config = resolveConfig({
    flags: { credentialsDir: dir },
    env: {
      ...sandboxClientEnv(sandbox),
      AGENT_MAILBOX_AUTH_URL: authUrl,
      ...(allowedOrigins ? { AGENT_MAILBOX_ALLOWED_ORIGINS: allowedOrigins } : {}),
    },
  });
  return connectGrant({
    dir,
    config,
    scope: 'mail.read mail.send',
    resource: `${config.apiUrl}/jmap`,
    openBrowser: autoApproveBrowser(),
    announce: () => undefined,
    waitMs: 10_000,
    signal: new AbortController().signal,
    deadline: Deadline.start({ timeoutMs: 10_000 }),
    log: silentLogger,
  }).catch((error: unknown) => error);
}

describe('OAuth: secrets go only to the configured origin', () => {
  for (const field of ['token_endpoint', 'registration_endpoint', 'revocation_endpoint']) {
    it(`discovery: metadata naming another origin for ${field} is refused before anything is sent`, async () => {
      const other = await elsewhere();
      const auth = await front(sandbox.authUrl, metadataNaming(field, other.url));
      const error = await connectThrough(auth.url);
      expect(error).toBeInstanceOf(MailboxError);
      expect((error as MailboxError).message).toContain(`names another origin for ${field} (${other.url})`);
      expect(wordInputs((error as MailboxError).hint, 'cli')).toContain('--allowed-origins');
      expect(other.hits(), everythingSent(other)).toBe(0);
    });
  }

  it('discovery: an origin the operator allowed is used', async () => {
    const other = await elsewhere();
    const auth = await front(sandbox.authUrl, metadataNaming('registration_endpoint', other.url));
    const error = await connectThrough(auth.url, other.url);
    // The other host is no authorization server: registration fails there, and only because it was allowed.
    expect(other.hits()).toBeGreaterThan(0);
    expect((error as Error).message).not.toContain('names another origin');
  });

  it('discovery: a redirect of the metadata request to another origin is not followed', async () => {
    const other = await elsewhere();
    const auth = await front(sandbox.authUrl, redirectWhen('GET', metadataPath, other.url));
    const error = await connectThrough(auth.url);
    expect(error).toBeInstanceOf(MailboxError);
    expect(auth.redirected).toBe(1);
    expect(other.hits()).toBe(0);
  });

  it('renewal: a token endpoint that redirects elsewhere never sees the refresh token follow', async () => {
    const other = await elsewhere();
    const dir = await tempCredentialsDir();
    await connectDirectory(sandbox, dir);
    const auth = await front(sandbox.authUrl, redirectWhen('POST', /^\/oauth\/token/, other.url));
    await rewriteGrant(dir, (grant) => ({
      ...grant,
      server: { ...grant['server'], token_endpoint: `${auth.url}/oauth/token` },
    }));
    await expireAccessTokens(dir);
    const registry = createAccountRegistry({
      configInputs: { flags: { credentialsDir: dir }, env: sandboxClientEnv(sandbox) },
      log: silentLogger,
    });
    const error = await registry
      .open(dir)
      .capability()
      .catch((e: unknown) => e);
    registry.close();
    expect(error).toBeInstanceOf(MailboxError);
    expect(auth.redirected).toBe(1);
    expect(other.hits(), everythingSent(other)).toBe(0);
    expect(everythingSent(other)).not.toContain(String((await storedGrant(dir))['refreshToken']));
  });

  it('inbox list: the access token is not resent to another origin', async () => {
    const other = await elsewhere();
    const dir = await tempCredentialsDir();
    await connectDirectory(sandbox, dir);
    const auth = await front(sandbox.authUrl, redirectWhen('GET', /^\/api\/v1\/agents/, other.url));
    const registry = createAccountRegistry({
      configInputs: {
        flags: { credentialsDir: dir },
        env: { ...sandboxClientEnv(sandbox), AGENT_MAILBOX_AUTH_URL: auth.url },
      },
      log: silentLogger,
    });
    const error = await registry
      .open(dir)
      .listInboxes({ refresh: true })
      .catch((e: unknown) => e);
    registry.close();
    expect(error).toBeInstanceOf(MailboxError);
    expect((error as MailboxError).message).toContain(`redirect to ${other.url}`);
    expect(other.hits(), everythingSent(other)).toBe(0);
  });
});
