import { describe, expect, it } from 'vitest';
import { wordInputs } from '../../../src/render/describe-next.js';
import type { MailboxError } from '../../../src/errors.js';
import { decodeJwtClaims, readBearerToken, tokenClaims, challengeClaims } from '../../../src/http/bearer-token.js';
import {
  cancelledError,
  errorDetail,
  failedBeforeSending,
  networkError,
  originOf,
  timeoutError,
  timeoutHint,
  tooLargeError,
} from '../../../src/http/http-errors.js';
import { codeForStatus, serviceError } from '../../../src/http/service-error.js';
import { forgetAllSecrets, redactSecrets, rememberSecret } from '../../../src/redact.js';

/**
 * What a failed request tells the user: which host (never the path or query, which may carry ids
 * or tokens), what happened, and a next step that never blindly resends what may have acted; the
 * service's own words kept, its raw-HTTP advice replaced, and any secret it echoes masked.
 */

const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (claims: Record<string, unknown>): string => `${part({ alg: 'none' })}.${part(claims)}.`;

describe("the HTTP layer's own errors", () => {
  it('name the host alone, or "the configured host" when the URL cannot be read', () => {
    expect(originOf('https://auth.example:8443/api/v1/session?token=secret')).toBe('https://auth.example:8443');
    expect(originOf('not a url')).toBe('the configured host');
  });

  it('word a timeout by whether the request may have acted', () => {
    const acted = timeoutError('POST /api/v1/session', 'http://127.0.0.1:9/api/v1/session?x=1', 1500, true, 'cause');
    expect(acted).toMatchObject({ code: 'timeout', cause: 'cause' });
    expect(acted.message).toBe('POST /api/v1/session: no complete answer from http://127.0.0.1:9 within 1500 ms.');
    expect(acted.hint).toBe(timeoutHint(true));
    expect(wordInputs(timeoutHint(true), 'cli')).toBe(
      'The request may still have taken effect, so it was not resent. Check its result (for a send: look in Sent) before trying again; raise --timeout-ms / AGENT_MAILBOX_TIMEOUT_MS if the host is just slow.',
    );
    expect(wordInputs(timeoutHint(false), 'cli')).toBe(
      'Check the network and that the host is up, or raise --timeout-ms / AGENT_MAILBOX_TIMEOUT_MS, then try again.',
    );
    expect(timeoutError('GET x', 'http://h', 1, false).hint).toBe(timeoutHint(false));
  });

  it('word a broken connection by whether the request may have reached the server', () => {
    const cause = new TypeError('fetch failed', {
      cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    });
    const acted = networkError('JMAP request', 'http://127.0.0.1:9/jmap/', cause, true);
    expect(acted).toMatchObject({ code: 'network', cause });
    expect(acted.message).toBe(
      'JMAP request: the connection to http://127.0.0.1:9 failed (ECONNRESET: socket hang up).',
    );
    expect(acted.hint).toBe(
      'The request may have reached the server before the connection broke, so it was not resent. Check its result before trying again.',
    );
    expect(networkError('x', 'http://h', cause, false).hint).toBe(
      'Check the network connection, then try again. If it keeps failing, the operator checks the service URLs this client was started with (AGENT_MAILBOX_AUTH_URL / AGENT_MAILBOX_API_URL, or --auth-url / --api-url on its command line or in the server config of the host); a tool call cannot change them.',
    );
  });

  it('say what was cancelled and what is too large, with the limit', () => {
    expect(cancelledError('Session discovery', 'why')).toMatchObject({
      code: 'cancelled',
      message: 'Session discovery was cancelled before it finished.',
      hint: 'Run it again when ready.',
      cause: 'why',
    });
    const large = tooLargeError('JMAP request', 'http://127.0.0.1:9/jmap/?q', 1024);
    expect(large).toMatchObject({
      code: 'response_too_large',
      details: { host: 'http://127.0.0.1:9', limitBytes: 1024 },
    });
    expect(large.message).toBe(
      'JMAP request: the answer from http://127.0.0.1:9 exceeded the limit of 1024 bytes, so it was cut off and not used.',
    );
    expect(wordInputs(large.hint, 'cli')).toMatch(
      /^Check that --auth-url \/ AGENT_MAILBOX_AUTH_URL and --api-url \/ AGENT_MAILBOX_API_URL point at the Agent Mailbox Service; for JMAP, ask for fewer or smaller objects/,
    );
  });

  it('take the most specific detail of a fetch failure', () => {
    expect(errorDetail('plain text')).toBe('plain text');
    expect(errorDetail(new Error('no code'))).toBe('no code');
    expect(errorDetail(Object.assign(new Error('boom'), { code: 'EPIPE' }))).toBe('EPIPE: boom');
    expect(
      errorDetail(
        new TypeError('fetch failed', {
          cause: Object.assign(new Error('connect ECONNREFUSED 1.2.3.4:5'), { code: 'ECONNREFUSED' }),
        }),
      ),
    ).toBe('connect ECONNREFUSED 1.2.3.4:5');
    expect(errorDetail(new TypeError('fetch failed', { cause: new Error('inner') }))).toBe('inner');
    expect(errorDetail(new TypeError('fetch failed', { cause: 'not an error' }))).toBe('fetch failed');
  });

  it('know the failures where the request never left this machine', () => {
    const failed = (code: string, wrapped = true): boolean => {
      const socket = Object.assign(new Error(code), { code });
      return failedBeforeSending(wrapped ? new TypeError('fetch failed', { cause: socket }) : socket);
    };
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']) {
      expect(failed(code), code).toBe(true);
      expect(failed(code, false), `${code} unwrapped`).toBe(true);
    }
    for (const code of ['ECONNRESET', 'EPIPE', 'ETIMEDOUT']) expect(failed(code), code).toBe(false);
    expect(failedBeforeSending(undefined)).toBe(false);
    expect(failedBeforeSending(new Error('no code'))).toBe(false);
  });
});

describe('serviceError: a non-2xx answer', () => {
  it('maps each final status to its code', () => {
    const codes = Object.fromEntries(
      [400, 401, 403, 404, 409, 413, 422, 429, 499, 500, 503].map((s) => [s, codeForStatus(s)]),
    );
    expect(codes).toEqual({
      400: 'invalid_input',
      401: 'auth_rejected',
      403: 'auth_rejected',
      404: 'bad_response',
      409: 'username_taken',
      413: 'bad_response',
      422: 'invalid_input',
      429: 'rate_limited',
      499: 'bad_response',
      500: 'server_error',
      503: 'server_error',
    });
  });

  it("keeps the service's message, hint and docs link (spec §7.2), naming status and endpoint", () => {
    const error = serviceError(
      429,
      JSON.stringify({
        error: { message: 'Slow down.', hint: 'Wait for 60 seconds.', docs_url: 'https://docs.example/limits' },
      }),
      'POST http://h/api/v1/challenge',
    );
    expect(error).toMatchObject({
      code: 'rate_limited',
      status: 429,
      message: 'Slow down. (HTTP 429 from POST http://h/api/v1/challenge)',
      hint: 'Wait for 60 seconds.',
      docsUrl: 'https://docs.example/limits',
    });
    const bare = serviceError(500, JSON.stringify({ error: { message: 'Oops.' } }), 'GET x');
    expect(bare.hint).toBe('The service has a problem on its side; try again in a few minutes.');
    expect(bare.docsUrl).toBeUndefined();
  });

  it.each([
    'Request a new challenge with POST /api/v1/challenge.',
    'Use the same challenge again.',
    'Ask for a fresh challenge.',
    'See /api/v2/docs for raw clients',
  ])('replaces a hint written for raw HTTP clients: %s', (hint) => {
    const error = serviceError(401, JSON.stringify({ error: { message: 'Bad proof.', hint } }), 'POST x');
    expect(error.hint).toBe(
      'The service refused the credentials; run register again (same username) or check the stored apiKey.',
    );
  });

  it('keeps a service hint that only looks like raw-HTTP advice, and spots the advice in any case', () => {
    for (const hint of ['Postpone the retry by a minute.', 'See the api/v-next notes.', 'Use a challenge again.'])
      expect(serviceError(401, JSON.stringify({ error: { message: 'm', hint } }), 'x').hint, hint).toBe(hint);
    for (const hint of ['Use the Same Challenge again.', 'post /API/V1/challenge first.'])
      expect(serviceError(401, JSON.stringify({ error: { message: 'm', hint } }), 'x').hint, hint).toBe(
        'The service refused the credentials; run register again (same username) or check the stored apiKey.',
      );
  });

  it('quotes a JSON body that is not an object as it came', () => {
    for (const body of ['null', '[1,2]', '"quoted"', '42'])
      expect(serviceError(502, body, 'GET x').message, body).toBe(`HTTP 502 from GET x: ${body}`);
  });

  it('falls back to a hint per code', () => {
    const hints = [400, 409, 429, 404].map(
      (status) => serviceError(status, JSON.stringify({ error: { message: 'm' } }), 'x').hint,
    );
    expect(hints).toEqual([
      'Correct the request as the message says and send it again.',
      'Choose another username and call register again with it. If this inbox is yours, register with its apiKey (⟦api_key⟧) instead.',
      'Wait a minute before trying again.',
      'Check that the configured auth/API URLs point at the Agent Mailbox Service.',
    ]);
  });

  it('reads a problem-details answer: detail, else title, else type', () => {
    const problem = (body: object): string => serviceError(400, JSON.stringify(body), 'POST http://h/jmap/').message;
    expect(
      problem({ type: 'urn:ietf:params:jmap:error:notRequest', title: 'Not a request', detail: 'Missing using' }),
    ).toBe('HTTP 400 from POST http://h/jmap/: Missing using');
    expect(problem({ type: 'urn:ietf:params:jmap:error:notRequest', title: 'Not a request' })).toBe(
      'HTTP 400 from POST http://h/jmap/: Not a request',
    );
    expect(problem({ type: 'urn:ietf:params:jmap:error:limit' })).toBe(
      'HTTP 400 from POST http://h/jmap/: urn:ietf:params:jmap:error:limit',
    );
    expect(serviceError(400, '{}', 'POST http://h/jmap/').message).toBe('HTTP 400 from POST http://h/jmap/: {}');
  });

  it('quotes a plain body trimmed and cut at 300 characters, and nothing when it is empty', () => {
    expect(serviceError(502, `  ${'b'.repeat(400)}  `, 'GET x').message).toBe(
      `HTTP 502 from GET x: ${'b'.repeat(300)}`,
    );
    expect(serviceError(502, '   ', 'GET x').message).toBe('HTTP 502 from GET x');
    expect(serviceError(502, '', 'GET x').hint).toBe(
      'The service has a problem on its side; try again in a few minutes.',
    );
  });

  it('masks secrets the service echoes in its message, hint and problem details', () => {
    forgetAllSecrets();
    const key = 'amk_echoed_key_0123456789';
    rememberSecret(key);
    const token = jwt({ exp: 1, sub: 'someone' });
    const echoed = serviceError(
      401,
      JSON.stringify({ error: { message: `Bad key ${key}`, hint: `Retry with Authorization: Bearer ${token}` } }),
      'x',
    );
    expect(echoed.message).not.toContain(key);
    expect(echoed.hint).not.toContain(token);
    const problem = serviceError(400, JSON.stringify({ detail: `token ${token}` }), 'x');
    expect(problem.message).not.toContain(token);
    forgetAllSecrets();
  });
});

describe('tokens in answers', () => {
  it('reads the bearer token of a response header, any scheme case, and refuses anything else', () => {
    expect(readBearerToken({ headers: new Headers({ authorization: '  Bearer abc.def.ghi  ' }) }, 'x')).toBe(
      'abc.def.ghi',
    );
    for (const header of ['Basic abc', 'Bearer', 'Bearer a b', 'xBearer abc', '']) {
      expect(
        () =>
          readBearerToken({ headers: new Headers(header ? { authorization: header } : {}) }, 'POST /api/v1/session'),
        header,
      ).toThrow('POST /api/v1/session answered without an "Authorization: Bearer" token header.');
    }
  });

  it('makes every token it reads known to the redactor before anyone can echo it', () => {
    forgetAllSecrets();
    const token = 'opaque-capability-token-0123456789';
    expect(redactSecrets(`echo ${token}`)).toContain(token);
    readBearerToken({ headers: new Headers({ authorization: `Bearer ${token}` }) }, 'x');
    expect(redactSecrets(`echo ${token}`)).toBe('echo <secret redacted>');
    forgetAllSecrets();
  });

  it('points a missing token or a bad JWT at the auth URL setting', () => {
    const errors = [
      () => readBearerToken({ headers: new Headers() }, 'x'),
      () => decodeJwtClaims('not-a-jwt', tokenClaims, 'session JWT'),
      () => decodeJwtClaims(jwt({}), tokenClaims, 'session JWT'),
    ].map((step) => {
      try {
        step();
      } catch (error) {
        return error as MailboxError;
      }
      return undefined;
    });
    for (const error of errors) {
      expect(error?.code).toBe('bad_response');
      expect(wordInputs(error!.hint, 'cli')).toBe(
        'Check that --auth-url / AGENT_MAILBOX_AUTH_URL points at the Agent Mailbox auth host; retry later if it does.',
      );
    }
  });

  it('holds challenge and token claims to the types the spec gives them', () => {
    const ok = { jti: 'c1', difficulty: 0 };
    expect(challengeClaims.safeParse(ok).success).toBe(true);
    expect(challengeClaims.safeParse({ ...ok, exp: 5 }).success).toBe(true);
    for (const bad of [
      { ...ok, jti: '' },
      { ...ok, jti: 1 },
      { ...ok, difficulty: 1.5 },
      { ...ok, difficulty: '4' },
      { jti: 'c1' },
      { ...ok, exp: '5' },
    ])
      expect(challengeClaims.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    expect(tokenClaims.safeParse({ exp: 5 }).success).toBe(true);
    expect(tokenClaims.safeParse({ exp: 5, iat: 1, inboxId: 'i' }).success).toBe(true);
    for (const bad of [{}, { exp: '5' }, { exp: 5, iat: '1' }, { exp: 5, inboxId: 7 }])
      expect(tokenClaims.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it('decodes claims without verifying them, and says which claims are missing', () => {
    expect(decodeJwtClaims(jwt({ jti: 'c1', difficulty: 4, extra: true }), challengeClaims, 'challenge JWT')).toEqual({
      jti: 'c1',
      difficulty: 4,
      extra: true,
    });
    const unreadable = (() => {
      try {
        decodeJwtClaims('not-a-jwt', tokenClaims, 'session JWT');
      } catch (error) {
        return error;
      }
    })();
    expect(unreadable).toMatchObject({ code: 'bad_response', message: 'The session JWT is not a readable JWT.' });
    expect(() => decodeJwtClaims(jwt({ difficulty: -1 }), challengeClaims, 'challenge JWT')).toThrow(
      'The challenge JWT lacks expected claims: jti, difficulty.',
    );
    expect(() => decodeJwtClaims(jwt({ iat: 1 }), tokenClaims, 'capability JWT')).toThrow(
      /^The capability JWT lacks expected claims: exp\.$/,
    );
  });

  it('tells the seconds until a token expires, or refuses a token whose expiry cannot be read', () => {
    const secondsLeft = (token: string, nowMs = Date.now()): number =>
      decodeJwtClaims(token, tokenClaims, 'token').exp - nowMs / 1000;
    expect(secondsLeft(jwt({ exp: 1_000 }), 400_000)).toBe(600);
    expect(() => secondsLeft(jwt({ iat: 1 }), 0)).toThrow(/lacks expected claims: exp/);
    expect(() => secondsLeft('garbage')).toThrow(/not a readable JWT/);
    // Without a clock given: now.
    const left = secondsLeft(jwt({ exp: Date.now() / 1000 + 600 }));
    expect(left).toBeGreaterThan(590);
    expect(left).toBeLessThanOrEqual(600);
  });
});
