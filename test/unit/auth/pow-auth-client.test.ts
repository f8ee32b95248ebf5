import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PowAuthClient } from '../../../src/auth/pow-auth-client.js';
import { silentLogger } from '../../../src/log.js';
import { countLeadingZeroBits } from '../../../src/pow/pow-digest.js';

// An unsigned JWT: the client decodes challenges without verifying them (live-service.md).
const unsignedJwt = (claims: Record<string, unknown>): string =>
  `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;

const closers: Array<() => void> = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A scripted auth host: challenge number i expires `lifetimes[i]` seconds from now. */
async function scriptedAuthHost(
  lifetimes: number[],
): Promise<{ url: string; challenges: () => number; sessionBodies: unknown[] }> {
  let challenges = 0;
  const sessionBodies: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/api/v1/challenge') {
        const lifetime = lifetimes[Math.min(challenges, lifetimes.length - 1)]!;
        challenges += 1;
        const jwt = unsignedJwt({
          jti: `challenge-${challenges}`,
          difficulty: 2,
          exp: Math.floor(Date.now() / 1000) + lifetime,
        });
        res.writeHead(200, { authorization: `Bearer ${jwt}` });
        return res.end('{}');
      }
      if (req.url === '/api/v1/session') {
        sessionBodies.push(JSON.parse(body));
        res.writeHead(200, {
          authorization: `bearer ${unsignedJwt({ exp: Math.floor(Date.now() / 1000) + 3600 })}`,
          'content-type': 'application/json',
        });
        return res.end(JSON.stringify({ apiKey: 'ak_new_key_123456', inbox: 'carol@example.test' }));
      }
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    challenges: () => challenges,
    sessionBodies,
  };
}

const client = (url: string): PowAuthClient =>
  new PowAuthClient({ authUrl: url, salt: 'test-salt', timeoutMs: 5_000, log: silentLogger });

describe('PowAuthClient', () => {
  it('fetches a fresh challenge when one expires before it is solved', async () => {
    const host = await scriptedAuthHost([-5, -5, 60]);
    const solved = await client(host.url).solveChallenge();
    expect(host.challenges()).toBe(3);
    expect(countLeadingZeroBits(Buffer.from(solved.powHex, 'hex'))).toBeGreaterThanOrEqual(2);
    expect(solved.pow.difficulty).toBe(2);
  });

  it('gives up with pow_too_slow after three expired challenges', async () => {
    const host = await scriptedAuthHost([-5]);
    await expect(client(host.url).solveChallenge()).rejects.toMatchObject({ code: 'pow_too_slow' });
    expect(host.challenges()).toBe(3);
  });

  it('sends the solution with the username and reads the session from the response header', async () => {
    const host = await scriptedAuthHost([60]);
    const auth = client(host.url);
    const solved = await auth.solveChallenge();
    const session = await auth.openSession(solved, { username: 'carol' });
    expect(host.sessionBodies[0]).toEqual({ powHex: solved.powHex, nonce: solved.nonce, username: 'carol' });
    expect(session.apiKey).toBe('ak_new_key_123456');
    expect(session.inbox).toBe('carol@example.test');
    expect(session.sessionJwt.split('.')).toHaveLength(3);
  });
});
