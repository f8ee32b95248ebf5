import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialsKindOf, oauthInboxStateDir } from '../../../src/credentials/credentials-kind.js';
import type { StoredGrant } from '../../../src/credentials/oauth-grant-files.js';
import { OAuthGrantStore } from '../../../src/credentials/oauth-grant-store.js';
import { redactSecrets } from '../../../src/redact.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

const grant = (generation: number, refreshToken = `amr_token_of_generation_${generation}_0123456789`): StoredGrant => ({
  kind: 'oauth',
  version: 1,
  server: { issuer: 'https://auth.example', token_endpoint: 'https://auth.example/oauth/token' },
  apiUrl: 'https://api.example',
  resource: 'https://api.example/jmap',
  clientId: 'client-1',
  scope: 'mail.read',
  refreshToken,
  generation,
  rotatedAt: '2026-01-01T00:00:00.000Z',
  connectedAt: '2026-01-01T00:00:00.000Z',
});
const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;
/** A temp file name as writeFileAtomic makes it, for a process that no longer runs. */
const deadTemp = (dir: string, target: string): string => join(dir, `.${target}.999999.abcdef012345.tmp`);

describe('OAuthGrantStore', () => {
  it('writes the grant 0600 in a 0700 directory and makes the refresh token known to the redactor', async () => {
    const dir = await tempCredentialsDir();
    const store = new OAuthGrantStore(dir);
    await store.writeGrant(grant(1));
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(join(dir, 'oauth.json'))).toBe(0o600);
    expect(await new OAuthGrantStore(dir).readGrant()).toEqual(grant(1));
    expect(redactSecrets('echo: amr_token_of_generation_1_0123456789')).toBe('echo: <secret redacted>');
  });

  it('finishes a rotation a killed process left in its temp file when that copy is newer', async () => {
    const dir = await tempCredentialsDir();
    await new OAuthGrantStore(dir).writeGrant(grant(3));
    await writeFile(deadTemp(dir, 'oauth.json'), JSON.stringify(grant(4)), { mode: 0o600 });
    const notices: string[] = [];
    const read = await new OAuthGrantStore(dir, (m) => notices.push(m)).readGrant();
    expect(read?.generation).toBe(4);
    expect(await readdir(dir)).toEqual(['oauth.json']);
    expect(notices[0]).toMatch(/^Recovered the newest refresh token/);
  });

  it('removes an older or partial copy: a retired refresh token must never be presented', async () => {
    for (const left of [JSON.stringify(grant(2)), '{"kind":"oauth","refreshToken":"amr_half']) {
      const dir = await tempCredentialsDir();
      await new OAuthGrantStore(dir).writeGrant(grant(3));
      await writeFile(deadTemp(dir, 'oauth.json'), left, { mode: 0o600 });
      expect((await new OAuthGrantStore(dir).readGrant())?.generation).toBe(3);
      expect(await readdir(dir)).toEqual(['oauth.json']);
    }
  });

  it('leaves the temp file of a process still running alone (its rename is on its way)', async () => {
    const dir = await tempCredentialsDir();
    await new OAuthGrantStore(dir).writeGrant(grant(3));
    const live = join(dir, `.oauth.json.${process.pid}.abcdef012345.tmp`);
    await writeFile(live, JSON.stringify(grant(4)), { mode: 0o600 });
    expect((await new OAuthGrantStore(dir).readGrant())?.generation).toBe(3);
    expect(await readFile(live, 'utf8')).toContain('"generation":4');
  });

  it('reports a damaged grant with its path and a way back, and leaves it untouched', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'oauth.json'), '{"kind":"oauth"', { mode: 0o600 });
    const error = await new OAuthGrantStore(dir).readGrant().catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'credentials_corrupt',
      message: expect.stringContaining(join(dir, 'oauth.json')),
      hint: expect.stringMatching(/^The grant cannot be read, and a refresh token cannot be guessed: connect again/),
    });
    expect(await readFile(join(dir, 'oauth.json'), 'utf8')).toBe('{"kind":"oauth"');
  });

  it('counts damaged caches as absent', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'access-tokens.json'), 'not json', { mode: 0o600 });
    await writeFile(join(dir, 'inboxes.json'), '{}', { mode: 0o600 });
    const store = new OAuthGrantStore(dir);
    expect(await store.readAccessTokens()).toBeUndefined();
    expect(await store.readInboxList()).toBeUndefined();
  });
});

describe('credentials kinds and inbox folders', () => {
  it('tells a proof-of-work directory, a connected account and an empty one apart', async () => {
    const dir = await tempCredentialsDir();
    expect(credentialsKindOf(dir)).toBe('none');
    await new OAuthGrantStore(dir).writeGrant(grant(1));
    expect(credentialsKindOf(dir)).toBe('oauth');
    const pow = await tempCredentialsDir();
    await mkdir(pow, { recursive: true });
    await writeFile(join(pow, 'credentials.json'), '{}');
    expect(credentialsKindOf(pow)).toBe('pow');
  });

  it('gives each inbox a folder named after its address, which no address can lead out of', () => {
    expect(oauthInboxStateDir('/c', 'Ops@Acme.test')).toBe('/c/inboxes/ops@acme.test');
    expect(oauthInboxStateDir('/c', '../../etc@x')).toBe('/c/inboxes/..%2F..%2Fetc@x');
    expect(oauthInboxStateDir('/c', '..')).toBe('/c/inboxes/%2E%2E');
    expect(oauthInboxStateDir('/c', '.')).toBe('/c/inboxes/%2E');
    for (const address of ['a/b@x', 'a\\b@x', 'ä@x', 'a b@x'])
      expect(oauthInboxStateDir('/c', address).slice('/c/inboxes/'.length)).toMatch(/^[a-z0-9._@+%-]+$/i);
  });
});
