import { scryptSync } from 'node:crypto';
import { cyrusUnavailableReason } from '../../sandbox/src/cyrus/cyrus-availability.js';
import { jmapCapabilities, scryptParams } from '../../src/wire-constants.js';

/**
 * Why the Cyrus tests skip on this machine (undefined: they run). The one line is printed once
 * per suite, so a run without Cyrus says how to enable it instead of silently passing.
 */
export function cyrusSkipReason(suite: string): string | undefined {
  const reason = cyrusUnavailableReason(process.getuid?.() === 0);
  // The test run's one line telling how to enable Cyrus.
  if (reason) console.log(`[${suite}] skipped: ${reason}`);
  return reason;
}

/** An inbox signed up on the sandbox's auth host, minting capability JWTs on demand. */
export interface TestInbox {
  address: string;
  apiKey: string;
  capability(): Promise<string>;
}

/** Solves a challenge the way the spec describes it (§4.3); tests keep the difficulty ≤ 4. */
function solve(jti: string, difficulty: number, salt: string): { nonce: string; powHex: string } {
  for (let nonce = 0; ; nonce += 1) {
    const digest = scryptSync(`${jti}:${nonce}`, Buffer.from(salt, 'utf8'), scryptParams.dkLen, {
      N: scryptParams.N,
      r: scryptParams.r,
      p: scryptParams.p,
      maxmem: 64 * 1024 * 1024,
    });
    let zeros = 0;
    for (const byte of digest) {
      if (byte === 0) zeros += 8;
      else {
        zeros += Math.clz32(byte) - 24;
        break;
      }
    }
    if (zeros >= difficulty) return { nonce: String(nonce), powHex: digest.toString('hex') };
  }
}

function bearerOf(res: Response): string {
  const header = res.headers.get('authorization') ?? '';
  const match = /^bearer\s+(\S+)$/i.exec(header);
  if (!match?.[1]) throw new Error(`no bearer in the response (HTTP ${res.status})`);
  return match[1];
}

/** Signs `username` up over plain HTTP: challenge, proof of work, session, capability (spec §4.3). */
export async function signUp(authUrl: string, username: string, salt: string): Promise<TestInbox> {
  const challengeRes = await fetch(`${authUrl}/api/v1/challenge`, { method: 'POST' });
  const challenge = bearerOf(challengeRes);
  const payload = JSON.parse(Buffer.from(challenge.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    jti: string;
    difficulty: number;
  };
  const proof = solve(payload.jti, payload.difficulty, salt);
  const sessionRes = await fetch(`${authUrl}/api/v1/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${challenge}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...proof, username }),
  });
  if (sessionRes.status !== 200)
    throw new Error(`sign-up of ${username} failed: HTTP ${sessionRes.status} ${await sessionRes.text()}`);
  const session = bearerOf(sessionRes);
  const body = (await sessionRes.json()) as { apiKey: string; inbox: string };
  return {
    address: body.inbox,
    apiKey: body.apiKey,
    capability: async () =>
      bearerOf(
        await fetch(`${authUrl}/api/v1/capability`, {
          method: 'POST',
          headers: { authorization: `Bearer ${session}` },
        }),
      ),
  };
}

/** Logs in with an apiKey (spec §4.3 login) and returns a capability JWT: for checks the CLI does not cover. */
export async function capabilityFromApiKey(authUrl: string, apiKey: string, salt: string): Promise<string> {
  const challenge = bearerOf(await fetch(`${authUrl}/api/v1/challenge`, { method: 'POST' }));
  const payload = JSON.parse(Buffer.from(challenge.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    jti: string;
    difficulty: number;
  };
  const sessionRes = await fetch(`${authUrl}/api/v1/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${challenge}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...solve(payload.jti, payload.difficulty, salt), apiKey }),
  });
  if (sessionRes.status !== 200) throw new Error(`login failed: HTTP ${sessionRes.status}`);
  return bearerOf(
    await fetch(`${authUrl}/api/v1/capability`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearerOf(sessionRes)}` },
    }),
  );
}

export type MethodCall = [string, Record<string, unknown>, string];

/** One JMAP request with a fresh capability; returns the HTTP status and the parsed body. */
export async function jmap(
  apiUrl: string,
  inbox: TestInbox,
  methodCalls: MethodCall[],
  using: string[] = [jmapCapabilities.core, jmapCapabilities.mail, jmapCapabilities.submission],
): Promise<{ status: number; body: { methodResponses: MethodCall[] } & Record<string, unknown> }> {
  const res = await fetch(apiUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${await inbox.capability()}`, 'content-type': 'application/json' },
    body: JSON.stringify({ using, methodCalls }),
  });
  return { status: res.status, body: (await res.json()) as { methodResponses: MethodCall[] } };
}

/** The arguments of the response to call `id`, failing loudly on a method-level error. */
export function resultOf(body: { methodResponses: MethodCall[] }, id: string): Record<string, unknown> {
  const response = body.methodResponses.find((r) => r[2] === id);
  if (!response) throw new Error(`no response for call ${id}: ${JSON.stringify(body)}`);
  if (response[0] === 'error') throw new Error(`call ${id} failed: ${JSON.stringify(response[1])}`);
  return response[1];
}

/** Calls `probe` until it returns a value, failing after `timeoutMs` (no fixed sleeps). */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
