import { importJWK, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { liveScryptSalt } from '../../src/wire-constants.js';
import {
  bearerOf,
  createFakeBackend,
  decodeJwt,
  findWeakNonce,
  postSession,
  requestChallenge,
  solveAndPostSession,
  solvePow,
  startTestSandbox,
} from '../helpers/sandbox.js';

const fake = createFakeBackend();
const sandbox = await startTestSandbox({ difficulty: 2, createBackend: fake.factory });

async function expectError(response: Response, status: number, message: RegExp, hint: RegExp): Promise<void> {
  const body = (await response.json()) as { error: { message: string; hint: string; docs_url: string } };
  expect({ status: response.status, ...body.error }).toMatchObject({
    status,
    message: expect.stringMatching(message),
    hint: expect.stringMatching(hint),
  });
  expect(body.error.docs_url).toMatch(/^https:\/\//);
}

describe('POST /api/v1/challenge', () => {
  it('answers with a signed challenge JWT in the Authorization header carrying jti, difficulty, iat and exp', async () => {
    const response = await fetch(`${sandbox.authUrl}/api/v1/challenge`, { method: 'POST' });
    expect(response.status).toBe(200);
    const token = bearerOf(response);
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ difficulty: 2, typ: 'challenge' });
    expect(String(claims['jti'])).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Number(claims['exp']) - Number(claims['iat'])).toBe(300);
    expect(((await response.json()) as { _next: string[] })._next.length).toBeGreaterThan(0);

    const jwks = (await (await fetch(`${sandbox.authUrl}/.well-known/jwks.json`)).json()) as {
      keys: Array<Record<string, string>>;
    };
    const jwk = jwks.keys[0]!;
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(jwk['d']).toBeUndefined();
    await expect(jwtVerify(token, await importJWK(jwk, 'EdDSA'))).resolves.toBeDefined();
  });

  it('gives every challenge a different jti', async () => {
    const [a, b] = await Promise.all([requestChallenge(sandbox.authUrl), requestChallenge(sandbox.authUrl)]);
    expect(a.jti).not.toBe(b.jti);
  });
});

describe('POST /api/v1/session: sign-up', () => {
  it('creates the inbox before answering, and returns a session JWT, a once-only apiKey and the inbox address', async () => {
    const before = sandbox.stats();
    const response = await solveAndPostSession(sandbox, { username: 'alice-01' });
    expect(response.status).toBe(200);
    const session = decodeJwt(bearerOf(response));
    expect(session).toMatchObject({ typ: 'session', sub: 'alice-01@agent-mailbox.test', inboxId: 'alice-01' });
    expect(Number(session['exp']) - Number(session['iat'])).toBe(3600);
    const body = (await response.json()) as { apiKey: string; inbox: string; _next: string[] };
    expect(body.inbox).toBe('alice-01@agent-mailbox.test');
    expect(body.apiKey).toMatch(/^amk_[A-Za-z0-9_-]{43}$/);
    expect(body._next.length).toBeGreaterThan(0);
    expect(fake.inboxes.has('alice-01@agent-mailbox.test')).toBe(true);
    expect(sandbox.stats()).toMatchObject({ signups: before.signups + 1, sessionsIssued: before.sessionsIssued + 1 });
  });

  it('refuses a username that is already taken with 409', async () => {
    expect((await solveAndPostSession(sandbox, { username: 'taken-name' })).status).toBe(200);
    await expectError(
      await solveAndPostSession(sandbox, { username: 'taken-name' }),
      409,
      /already taken/,
      /Choose another username/,
    );
  });

  it.each([
    ['abcd', /4 characters; it must have 5 to 21/],
    ['a'.repeat(22), /22 characters/],
    ['Alice', /character rule/],
    ['-alice', /character rule/],
    ['al ice', /character rule/],
  ])('refuses the invalid username %j with 422 and names the rule it breaks', async (username, message) => {
    const challenge = await requestChallenge(sandbox.authUrl);
    const proof = await solvePow(challenge.jti, challenge.difficulty, sandbox.salt);
    await expectError(
      await postSession(sandbox.authUrl, challenge.token, { ...proof, username }),
      422,
      message,
      /Choose a username/,
    );
  });
});

describe('POST /api/v1/session: refused proofs', () => {
  it('refuses a challenge that was already used, with a hint to request a fresh one', async () => {
    const challenge = await requestChallenge(sandbox.authUrl);
    const proof = await solvePow(challenge.jti, challenge.difficulty, sandbox.salt);
    expect((await postSession(sandbox.authUrl, challenge.token, { ...proof, username: 'reuse-one' })).status).toBe(200);
    const again = await postSession(sandbox.authUrl, challenge.token, { ...proof, username: 'reuse-two' });
    await expectError(again, 401, /already used/, /fresh challenge with POST \/api\/v1\/challenge/);
  });

  it('refuses a proof computed with the wrong salt (hex-decoded) with 401', async () => {
    const challenge = await requestChallenge(sandbox.authUrl);
    const wrongSalt = Buffer.from(liveScryptSalt, 'hex').toString('latin1');
    const proof = await solvePow(challenge.jti, challenge.difficulty, wrongSalt);
    const before = sandbox.stats().powFailures;
    await expectError(
      await postSession(sandbox.authUrl, challenge.token, { ...proof, username: 'wrong-salt' }),
      401,
      /proof of work is wrong/,
      /do not hex-decode/,
    );
    expect(sandbox.stats().powFailures).toBe(before + 1);
  });

  it('refuses a right digest sent with the wrong nonce with 401', async () => {
    const challenge = await requestChallenge(sandbox.authUrl);
    const proof = await solvePow(challenge.jti, challenge.difficulty, sandbox.salt);
    const body = { powHex: proof.powHex, nonce: String(Number(proof.nonce) + 1), username: 'wrong-nonce' };
    await expectError(
      await postSession(sandbox.authUrl, challenge.token, body),
      401,
      /proof of work is wrong/,
      /fresh challenge/,
    );
  });

  it('refuses a powHex that matches no digest with 401', async () => {
    const challenge = await requestChallenge(sandbox.authUrl);
    await expectError(
      await postSession(sandbox.authUrl, challenge.token, {
        powHex: '0'.repeat(128),
        nonce: '0',
        username: 'zero-hex',
      }),
      401,
      /proof of work is wrong/,
      /fresh challenge/,
    );
  });

  it('refuses an honest digest with too few leading zero bits with 401', async () => {
    const challenge = await requestChallenge(sandbox.authUrl);
    const weak = await findWeakNonce(challenge.jti, challenge.difficulty, sandbox.salt);
    await expectError(
      await postSession(sandbox.authUrl, challenge.token, { ...weak, username: 'too-weak' }),
      401,
      /too weak.*requires 2/,
      /zero bits/,
    );
  });

  it('refuses a request with no bearer, or with a forged or foreign token, with 401', async () => {
    await expectError(
      await fetch(`${sandbox.authUrl}/api/v1/session`, { method: 'POST', body: '{}' }),
      401,
      /No challenge JWT/,
      /fresh challenge/,
    );
    const challenge = await requestChallenge(sandbox.authUrl);
    const [head, payload] = challenge.token.split('.');
    await expectError(
      await postSession(sandbox.authUrl, `${head}.${payload}.AAAA`, {
        powHex: '0'.repeat(128),
        nonce: '1',
        username: 'forged-x',
      }),
      401,
      /not valid/,
      /fresh challenge/,
    );
  });

  const hex = 'ab'.repeat(64);
  it.each([
    ['broken JSON', '{not json', /not valid JSON/],
    ['no powHex', JSON.stringify({ nonce: '1', username: 'abcdef' }), /powHex is missing/],
    [
      'a numeric nonce',
      JSON.stringify({ powHex: hex, nonce: 12, username: 'abcdef' }),
      /nonce is missing or not a string/,
    ],
    ['a hex nonce', JSON.stringify({ powHex: hex, nonce: '0x1f', username: 'abcdef' }), /not a decimal string/],
    ['a short powHex', JSON.stringify({ powHex: 'abc', nonce: '1', username: 'abcdef' }), /128 hex digits/],
    ['neither username nor apiKey', JSON.stringify({ powHex: hex, nonce: '1' }), /Neither username/],
    [
      'both username and apiKey',
      JSON.stringify({ powHex: hex, nonce: '1', username: 'abcdef', apiKey: 'amk_x' }),
      /not both/,
    ],
  ])('answers 400 to a body with %s, without spending the challenge', async (_label, body, message) => {
    const challenge = await requestChallenge(sandbox.authUrl);
    await expectError(await postSession(sandbox.authUrl, challenge.token, body), 400, message, /JSON body of the form/);
    const proof = await solvePow(challenge.jti, challenge.difficulty, sandbox.salt);
    expect((await postSession(sandbox.authUrl, challenge.token, { ...proof, apiKey: 'amk_unknown' })).status).toBe(401);
  });
});

describe('POST /api/v1/session: login', () => {
  it('logs in with the apiKey from sign-up and gets a session for the same inbox', async () => {
    const signUp = await solveAndPostSession(sandbox, { username: 'login-user' });
    const { apiKey } = (await signUp.json()) as { apiKey: string };
    const before = sandbox.stats().logins;
    const login = await solveAndPostSession(sandbox, { apiKey });
    expect(login.status).toBe(200);
    expect(decodeJwt(bearerOf(login))).toMatchObject({ typ: 'session', sub: 'login-user@agent-mailbox.test' });
    expect(await login.json()).toMatchObject({ inbox: 'login-user@agent-mailbox.test' });
    expect(sandbox.stats().logins).toBe(before + 1);
  });

  it('refuses an unknown apiKey with 401', async () => {
    await expectError(
      await solveAndPostSession(sandbox, { apiKey: 'amk_not-a-real-key' }),
      401,
      /apiKey is not known/,
      /sign up|fresh challenge/,
    );
  });
});
