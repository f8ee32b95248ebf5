import { describe, expect, it } from 'vitest';
import { wordInputs } from '../../../src/render/describe-next.js';
import { resolveConfig } from '../../../src/config.js';
import { MailboxError } from '../../../src/errors.js';
import { nodeHttpFetch } from '../../../src/http/node-http-fetch.js';
import { checkRedirect, isOriginAllowed, originOfTemplate, RedirectRefused } from '../../../src/http/origin-rule.js';
import { sendHttp } from '../../../src/http/send-http.js';
import { assertSessionOrigins, foreignSessionUrls } from '../../../src/jmap/jmap-session.js';
import { scriptedServer } from '../../helpers/scripted-http-server.js';

const redirectTo =
  (target: () => string, status = 307) =>
  async () =>
    scriptedServer((req, res) => {
      if (req.url === '/same') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('here');
      }
      res.writeHead(status, { location: req.url === '/local' ? '/same' : `${target()}/taken` });
      res.end();
    });

describe('redirects keep to the origin asked', () => {
  it('refuses another host, another port, a downgrade to http and an upgrade to https', () => {
    const from = new URL('https://api.example/session');
    for (const to of [
      'https://evil.example/x',
      'https://api.example:8443/x',
      'http://api.example/x',
      'ftp://api.example/x',
    ]) {
      expect(() => checkRedirect(from, new URL(to)), to).toThrow(RedirectRefused);
    }
    expect(() => checkRedirect(new URL('http://127.0.0.1:80/a'), new URL('https://127.0.0.1/a'))).toThrow(
      RedirectRefused,
    );
    const refused = (() => {
      try {
        checkRedirect(from, new URL('http://api.example/x'));
      } catch (error) {
        return error as RedirectRefused;
      }
      return undefined;
    })();
    expect(refused).toMatchObject({ from: 'https://api.example', to: 'http://api.example' });
    expect(refused?.message).toBe(
      'redirect from https://api.example to http://api.example refused: credentials go only to the configured origin',
    );
    // A scheme without an origin of its own is still named by its host.
    expect(() => checkRedirect(from, new URL('foo://api.example/x'))).toThrow('to foo://api.example refused');
  });

  it('follows within the origin, default ports included', () => {
    expect(() => checkRedirect(new URL('https://api.example:443/a'), new URL('https://API.example/b?c'))).not.toThrow();
    expect(() =>
      checkRedirect(new URL('http://127.0.0.1:8080/a'), new URL('http://127.0.0.1:8080/jmap/')),
    ).not.toThrow();
  });

  it('node-http-fetch sends neither the Authorization header nor the body to a second loopback origin', async () => {
    const other = await scriptedServer((_req, res) => res.end('{}'));
    for (const status of [301, 302, 303, 307, 308]) {
      const first = await redirectTo(() => other.url, status)();
      const error = await nodeHttpFetch(`${first.url}/api`, {
        method: 'POST',
        headers: { authorization: 'Bearer secret-token' },
        body: '{"apiKey":"am_secret"}',
      }).catch((e: unknown) => e);
      expect(error, String(status)).toBeInstanceOf(RedirectRefused);
      expect((error as RedirectRefused).to).toBe(other.url);
      expect(first.hits()).toBe(1);
    }
    expect(other.hits()).toBe(0);
  });

  it('node-http-fetch still follows a redirect on the same origin, with the credential', async () => {
    const first = await redirectTo(() => 'unused')();
    const response = await nodeHttpFetch(`${first.url}/local`, { headers: { authorization: 'Bearer same-origin' } });
    expect(response.status).toBe(200);
    expect(first.requests[1]?.headers.authorization).toBe('Bearer same-origin');
  });

  it('sendHttp answers a refused redirect with a clear error and never resends it', async () => {
    const other = await scriptedServer((_req, res) => res.end('{}'));
    const first = await redirectTo(() => other.url)();
    const error = await sendHttp(
      `${first.url}/download`,
      { headers: { authorization: 'Bearer t' } },
      { what: 'Download', retry: 'idempotent', timeoutMs: 2000, maxBytes: 1024, retryBaseMs: 1 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailboxError);
    expect((error as MailboxError).code).toBe('bad_response');
    expect((error as MailboxError).message).toBe(
      `Download: ${first.url} answered with a redirect to ${other.url}, another origin; the request carries credentials, so it was not followed.`,
    );
    expect(wordInputs((error as MailboxError).hint, 'cli')).toMatch(
      /--auth-url \/ AGENT_MAILBOX_AUTH_URL and --api-url/,
    );
    expect((error as MailboxError).details).toEqual({ from: first.url, to: other.url });
    expect(first.hits()).toBe(1);
    expect(other.hits()).toBe(0);
  });
});

describe('the origin of a session URL or template', () => {
  it('reads it before the first placeholder, and refuses a placeholder in the authority', () => {
    expect(originOfTemplate('https://api.example/download/{accountId}/{blobId}/{name}?type={type}')).toBe(
      'https://api.example',
    );
    expect(originOfTemplate('HTTPS://API.example:443/x')).toBe('https://api.example');
    expect(originOfTemplate('http://127.0.0.1:9/eventsource/?types={types}')).toBe('http://127.0.0.1:9');
    for (const bad of [
      'https://{accountId}/x',
      'https://api.example{x}/',
      'https://{u}@api.example/',
      'https://api.example:{port}/',
      '/relative/{x}',
      'ftp://api.example/',
      'https:///x',
      'not a url',
      'see https://api.example/',
      'https://exa mple.example/',
    ]) {
      expect(originOfTemplate(bad), bad).toBeUndefined();
    }
  });

  it('allows the own origin and the allowed ones only', () => {
    expect(isOriginAllowed('https://api.example/jmap', 'https://api.example', [])).toBe(true);
    expect(isOriginAllowed('https://blobs.example/d/{blobId}', 'https://api.example', [])).toBe(false);
    expect(isOriginAllowed('https://blobs.example/d/{blobId}', 'https://api.example', ['https://blobs.example'])).toBe(
      true,
    );
    expect(isOriginAllowed('http://blobs.example/d', 'https://api.example', ['https://blobs.example'])).toBe(false);
    expect(isOriginAllowed('https://{x}/d', 'https://api.example', ['https://api.example'])).toBe(false);
  });

  it('names each foreign URL of a session, and passes a session on its own origin', () => {
    const own = {
      sessionUrl: 'https://api.example/.well-known/jmap',
      apiUrl: 'https://api.example/jmap',
      uploadUrl: 'https://api.example/upload/{accountId}/',
      downloadUrl: 'https://api.example/download/{accountId}/{blobId}/{name}?type={type}',
    };
    expect(foreignSessionUrls(own, [])).toEqual([]);
    expect(() => assertSessionOrigins({ ...own, eventSourceUrl: 'https://api.example/es' }, [])).not.toThrow();
    const moved = { ...own, downloadUrl: 'https://blobs.example/{blobId}', eventSourceUrl: 'http://api.example/es' };
    expect(foreignSessionUrls(moved, [])).toEqual([
      { field: 'downloadUrl', origin: 'https://blobs.example' },
      { field: 'eventSourceUrl', origin: 'http://api.example' },
    ]);
    expect(foreignSessionUrls(moved, ['https://blobs.example'])).toEqual([
      { field: 'eventSourceUrl', origin: 'http://api.example' },
    ]);
    expect(() => assertSessionOrigins(moved, [])).toThrow(
      /names another origin for downloadUrl \(https:\/\/blobs\.example\), eventSourceUrl \(http:\/\/api\.example\)/,
    );
  });
});

describe('the allowedOrigins setting', () => {
  it('reads origins from the flag or the environment, by commas or spaces; none by default', () => {
    expect(resolveConfig({}).allowedOrigins).toEqual([]);
    expect(
      resolveConfig({
        env: { AGENT_MAILBOX_ALLOWED_ORIGINS: 'https://Blobs.example, http://127.0.0.1:8080  https://x.example:443' },
      }).allowedOrigins,
    ).toEqual(['https://blobs.example', 'http://127.0.0.1:8080', 'https://x.example']);
    expect(
      resolveConfig({
        flags: { allowedOrigins: 'https://a.example/' },
        env: { AGENT_MAILBOX_ALLOWED_ORIGINS: 'https://b.example' },
      }).allowedOrigins,
    ).toEqual(['https://a.example']);
  });

  it('refuses anything but a bare http(s) origin, naming the flag', () => {
    for (const bad of [
      'https://a.example/path',
      'ftp://a.example',
      'https://u:p@a.example',
      'https://a.example/?q',
      'https://a.example/#f',
      'a.example',
    ]) {
      const error = (() => {
        try {
          resolveConfig({ env: { AGENT_MAILBOX_ALLOWED_ORIGINS: bad } });
        } catch (e) {
          return e as MailboxError;
        }
        return undefined;
      })();
      expect(error?.code, bad).toBe('invalid_input');
      expect(error?.hint).toContain('--allowed-origins');
    }
  });
});
