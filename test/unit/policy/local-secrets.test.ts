import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lookValidMs, rememberLocalSecrets, secretsOfDir } from '../../../src/policy/local-secrets.js';
import { rememberInboxDir } from '../../../src/policy/records/inbox-dirs.js';
import { scanForSecrets } from '../../../src/policy/secret-scan.js';
import { containsKnownSecret, forgetAllSecrets, rememberSecret } from '../../../src/redact.js';

/**
 * The scan knows by value every secret in this OS user's credentials and grant files it can find,
 * even ones no code of this process ever loaded: another inbox's apiKey, a connected account's
 * refresh token and client secret, an opaque access token.
 */

let root: string;
beforeEach(async () => {
  forgetAllSecrets();
  root = await mkdtemp(join(tmpdir(), 'local-secrets-'));
});
afterEach(async () => {
  forgetAllSecrets();
  await rm(root, { recursive: true, force: true });
});

// Shapes no structural rule knows: only the value can give them away.
const apiKey = 'Zq7WmX2pLk9sRt4vBn8c';
const refreshToken = 'Rf4kQ9mZx2LpW7sTn3vB';
const clientSecret = 'Cs8nV2bXq5LmK9pZ7wRt';
const opaqueToken = 'Ot3pL8mQ2zXk7vWn5sRb';

async function put(dir: string, files: Record<string, unknown>): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const [name, content] of Object.entries(files))
    await writeFile(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o600 });
}

const found = async (text: string) => (await scanForSecrets([{ where: 'the body', text }])).map((f) => f.kind);

describe("the secrets of this OS user's credentials", () => {
  it('are read from credentials, grant and access-token files, JWTs left to the structural match', async () => {
    await put(join(root, 'a'), {
      'credentials.json': { apiKey, inboxId: 'a' },
      'oauth.json': { refreshToken, clientSecret },
      'access-tokens.json': { tokens: [{ token: opaqueToken }, { token: 'eyJx.eyJy.z' }, null] },
      'capability.jwt': 'eyJa.eyJb.c\n',
    });
    expect((await secretsOfDir(join(root, 'a'))).sort()).toEqual(
      [apiKey, refreshToken, clientSecret, opaqueToken, 'eyJx.eyJy.z', 'eyJa.eyJb.c'].sort(),
    );
    expect(await secretsOfDir(join(root, 'missing'))).toEqual([]);
    await put(join(root, 'bad'), { 'credentials.json': 'not json', 'oauth.json': '[1]' });
    expect(await secretsOfDir(join(root, 'bad'))).toEqual([]);
  });

  it('are found in the default directory, those below it, the directory in use and every registered one', async () => {
    const defaultDir = join(root, 'default');
    const userConfigDir = join(root, 'config');
    await put(join(defaultDir, 'second-inbox'), { 'credentials.json': { apiKey, inboxId: 'b' } });
    await put(join(root, 'elsewhere', 'grant'), { 'oauth.json': { refreshToken, clientSecret } });
    await put(join(root, 'in-use'), { 'access-tokens.json': { tokens: [{ token: opaqueToken }] } });
    await rememberInboxDir(userConfigDir, join(root, 'elsewhere', 'grant'));
    await rememberLocalSecrets({ inUse: join(root, 'in-use'), defaultDir, userConfigDir });
    for (const secret of [apiKey, refreshToken, clientSecret, opaqueToken])
      expect(await found(`here: ${secret}`), secret).toEqual(["this inbox's own apiKey or token"]);
    expect(await found(`a piece: ${apiKey.slice(2, 16)}`)).toEqual(["this inbox's own apiKey or token"]);
  });

  it('write nothing, and miss what lies in no directory the tool knows', async () => {
    const userConfigDir = join(root, 'config');
    await put(join(root, 'unknown'), { 'credentials.json': { apiKey, inboxId: 'c' } });
    await rememberLocalSecrets({ inUse: join(root, 'in-use'), defaultDir: undefined, userConfigDir });
    expect(existsSync(userConfigDir)).toBe(false);
    expect(containsKnownSecret(apiKey)).toBe(false);
  });

  it('read past a list of inbox directories that cannot be read', async () => {
    const userConfigDir = join(root, 'config');
    await put(userConfigDir, { 'inbox-dirs.json': 'not json' });
    await put(join(root, 'in-use'), { 'credentials.json': { apiKey, inboxId: 'd' } });
    await rememberLocalSecrets({ inUse: join(root, 'in-use'), defaultDir: undefined, userConfigDir });
    expect(containsKnownSecret(apiKey)).toBe(true);
  });

  it('do not push the tokens this process uses out of the redactor', async () => {
    const live = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJsaXZlIn0.c2lnbmF0dXJlLWxpdmUtdG9rZW4';
    rememberSecret(live);
    const tokens = Array.from({ length: 40 }, (_, i) => ({
      token: `eyJhbGciOiJub25lIn0.eyJpIjo${i}fQ.QUJDREVGR0hJSktMTU5PUFFS${i}`,
    }));
    await put(join(root, 'busy'), { 'access-tokens.json': { tokens } });
    await rememberLocalSecrets({
      inUse: join(root, 'busy'),
      defaultDir: undefined,
      userConfigDir: join(root, 'config'),
    });
    expect(containsKnownSecret(live)).toBe(true);
  });

  it('are looked for again only after a while, and remembered again in between', async () => {
    let clock = 1_000_000;
    const options = {
      inUse: join(root, 'in-use'),
      defaultDir: join(root, 'default'),
      userConfigDir: join(root, 'config'),
      now: () => clock,
    };
    await put(join(root, 'default', 'first'), { 'credentials.json': { apiKey, inboxId: 'a' } });
    await rememberLocalSecrets(options);
    await put(join(root, 'default', 'second'), { 'oauth.json': { refreshToken } });
    forgetAllSecrets();
    clock += lookValidMs - 1;
    await rememberLocalSecrets(options);
    expect(containsKnownSecret(apiKey)).toBe(true);
    expect(containsKnownSecret(refreshToken)).toBe(false);
    clock += 1;
    await rememberLocalSecrets(options);
    expect(containsKnownSecret(refreshToken)).toBe(true);
  });

  it('are not looked for again at the same instant, and are when the clock went back', async () => {
    let clock = 1_000_000;
    const options = {
      inUse: join(root, 'in-use'),
      defaultDir: join(root, 'default'),
      userConfigDir: join(root, 'config'),
      now: () => clock,
    };
    await put(join(root, 'default', 'first'), { 'credentials.json': { apiKey, inboxId: 'a' } });
    await rememberLocalSecrets(options);
    await put(join(root, 'default', 'second'), { 'oauth.json': { refreshToken } });
    await rememberLocalSecrets(options);
    expect(containsKnownSecret(refreshToken)).toBe(false);
    clock -= 1;
    await rememberLocalSecrets(options);
    expect(containsKnownSecret(refreshToken)).toBe(true);
  });

  it('keep a secret that holds dots but does not start as a token does', async () => {
    const dotted = 'Zx/9Qw.partone.tail-of-the-secret';
    await put(join(root, 'in-use'), { 'oauth.json': { clientSecret: dotted } });
    await rememberLocalSecrets({
      inUse: join(root, 'in-use'),
      defaultDir: undefined,
      userConfigDir: join(root, 'config'),
    });
    expect(containsKnownSecret(dotted)).toBe(true);
  });
});
