import { scrypt } from 'node:crypto';
import { cleanUpAfter } from './clean-up-after.js';
import type { BackendContext, MailBackend, OutboxEntry } from '../../src/mail-backend.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/start-sandbox.js';

/**
 * Starts a sandbox on 127.0.0.1 port 0 with difficulty 2 and closes it when the test ends (called
 * inside a test) or after the file (called at the top level, with top-level await).
 */
export async function startTestSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const sandbox = await startSandbox({ difficulty: 2, ...options });
  cleanUpAfter(() => sandbox.close());
  return sandbox;
}

/** A stand-in mail store for auth-only tests: records inboxes and mail, checks capabilities on GET /.well-known/jmap. */
export function createFakeBackend(): {
  factory: (ctx: BackendContext) => Promise<MailBackend>;
  inboxes: Set<string>;
  delivered: Array<{ raw: Buffer; to: string[] }>;
} {
  const inboxes = new Set<string>();
  const delivered: Array<{ raw: Buffer; to: string[] }> = [];
  const factory = async (ctx: BackendContext): Promise<MailBackend> => ({
    kind: 'embedded',
    handle(req, res) {
      ctx
        .verifyCapability(req.headers.authorization ?? '')
        .then((claims) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ accountId: claims.address, inboxId: claims.inboxId }));
        })
        .catch((error: unknown) => {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
        });
    },
    async createInbox(address) {
      inboxes.add(address);
    },
    async deliverInbound(raw, envelope) {
      const accepted = envelope.to.filter((to) => inboxes.has(to.toLowerCase()));
      delivered.push({ raw, to: accepted });
      return { accepted, rejected: envelope.to.filter((to) => !accepted.includes(to)) };
    },
    async outbox(): Promise<OutboxEntry[]> {
      return [];
    },
    async close() {},
  });
  return { factory, inboxes, delivered };
}

/** scrypt digest of `<challenge>:<nonce>` exactly as spec §4.3 defines it. */
export function powDigest(challenge: string, nonce: string, salt: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      `${challenge}:${nonce}`,
      Buffer.from(salt, 'utf8'),
      64,
      { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** Leading zero bits of a digest, big-endian. */
export function zeroBits(digest: Buffer): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte !== 0) return bits + Math.clz32(byte) - 24;
    bits += 8;
  }
  return bits;
}

/** The smallest nonce that meets `difficulty` (a serial loop: tests keep difficulty ≤ 4). */
export async function solvePow(
  challenge: string,
  difficulty: number,
  salt: string,
): Promise<{ nonce: string; powHex: string }> {
  for (let nonce = 0; ; nonce += 1) {
    const digest = await powDigest(challenge, String(nonce), salt);
    if (zeroBits(digest) >= difficulty) return { nonce: String(nonce), powHex: digest.toString('hex') };
  }
}

/** A nonce whose digest does NOT meet `difficulty` (for the "too few zero bits" case). */
export async function findWeakNonce(
  challenge: string,
  difficulty: number,
  salt: string,
): Promise<{ nonce: string; powHex: string }> {
  for (let nonce = 0; ; nonce += 1) {
    const digest = await powDigest(challenge, String(nonce), salt);
    if (zeroBits(digest) < difficulty) return { nonce: String(nonce), powHex: digest.toString('hex') };
  }
}

/** Payload of a JWT, decoded without verification (as clients of the live service do). */
export function decodeJwt(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (!part) throw new Error(`not a JWT: ${token.slice(0, 20)}`);
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** The token in a response's `Authorization: Bearer` header. */
export function bearerOf(response: Response): string {
  const match = /^bearer\s+(\S+)$/i.exec(response.headers.get('authorization') ?? '');
  if (!match?.[1]) throw new Error(`no bearer token in the response (status ${response.status})`);
  return match[1];
}

/** POST /api/v1/challenge; returns the challenge JWT and its claims. */
export async function requestChallenge(
  authUrl: string,
): Promise<{ token: string; jti: string; difficulty: number; exp: number }> {
  const response = await fetch(`${authUrl}/api/v1/challenge`, { method: 'POST' });
  if (response.status !== 200) throw new Error(`challenge answered ${response.status}: ${await response.text()}`);
  const token = bearerOf(response);
  const claims = decodeJwt(token);
  return { token, jti: String(claims['jti']), difficulty: Number(claims['difficulty']), exp: Number(claims['exp']) };
}

/** POST /api/v1/session with a JSON body and a bearer. */
export function postSession(authUrl: string, bearer: string, body: unknown): Promise<Response> {
  return fetch(`${authUrl}/api/v1/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** POST /api/v1/capability with a session JWT. */
export function postCapability(authUrl: string, session: string): Promise<Response> {
  return fetch(`${authUrl}/api/v1/capability`, { method: 'POST', headers: { authorization: `Bearer ${session}` } });
}

/** Challenge, solve, and POST /session with `fields` (username or apiKey); returns the raw response. */
export async function solveAndPostSession(
  sandbox: Pick<RunningSandbox, 'authUrl' | 'salt'>,
  fields: Record<string, string>,
): Promise<Response> {
  const challenge = await requestChallenge(sandbox.authUrl);
  const proof = await solvePow(challenge.jti, challenge.difficulty, sandbox.salt);
  return postSession(sandbox.authUrl, challenge.token, { ...proof, ...fields });
}

export interface SignedUpInbox {
  address: string;
  apiKey: string;
  session: string;
  capability: string;
}

/** The whole chain over plain HTTP: sign-up, then a capability. */
export async function signUpInbox(
  sandbox: Pick<RunningSandbox, 'authUrl' | 'salt'>,
  username: string,
): Promise<SignedUpInbox> {
  const response = await solveAndPostSession(sandbox, { username });
  if (response.status !== 200) throw new Error(`sign-up answered ${response.status}: ${await response.text()}`);
  const session = bearerOf(response);
  const body = (await response.json()) as { apiKey: string; inbox: string };
  const capabilityResponse = await postCapability(sandbox.authUrl, session);
  if (capabilityResponse.status !== 200) throw new Error(`capability answered ${capabilityResponse.status}`);
  return { address: body.inbox, apiKey: body.apiKey, session, capability: bearerOf(capabilityResponse) };
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function pollUntil<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
