import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/start-sandbox.js';
import { cleanUpAfter } from '../helpers/clean-up-after.js';
import { signUpInbox } from '../helpers/sandbox.js';
import { connect, jmapAs, listAgents, refresh } from './oauth-test-client.js';

describe('the OAuth server with --data-dir', () => {
  it('keeps its key, clients, grants, people and inbox UUIDs across a restart, in 0600 files', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'oauth-persist-'));
    cleanUpAfter(() => rm(dataDir, { recursive: true, force: true }));
    const options = {
      difficulty: 2,
      dataDir,
      oauth: { autoApprove: [{ person: 'Ada', inboxes: ['ada-inbox', 'ops@acme.test'] }] },
    };

    const first = await startSandbox(options);
    let jwksBefore: unknown;
    let connected: Awaited<ReturnType<typeof connect>>;
    let powAddress: string;
    try {
      jwksBefore = await (await fetch(`${first.authUrl}/.well-known/jwks.json`)).json();
      connected = await connect(first);
      powAddress = (await signUpInbox(first, 'pow-agent-2')).address;
    } finally {
      await first.close();
    }

    const second = await startSandbox({
      ...options,
      authPort: Number(new URL(first.authUrl).port),
      apiPort: Number(new URL(first.apiUrl).port),
    });
    try {
      expect(await (await fetch(`${second.authUrl}/.well-known/jwks.json`)).json()).toEqual(jwksBefore);
      expect(second.oauth.autoApproved).toEqual(first.oauth.autoApproved);
      // The access token from before the restart still verifies, and the grant's refresh token still rotates.
      const agents = await listAgents(second.authUrl, connected.tokens.access_token);
      expect(agents.status).toBe(200);
      const accountId = first.oauth.autoApproved[0]?.inboxes[1]?.accountId ?? '';
      expect(
        (await jmapAs(`${second.apiUrl}/jmap`, connected.tokens.access_token, accountId, [['Mailbox/get', {}, 'm']]))
          .status,
      ).toBe(200);
      expect((await refresh(second, connected.client, connected.tokens.refresh_token)).status).toBe(200);
    } finally {
      await second.close();
    }

    const oauthDir = join(dataDir, 'auth', 'oauth');
    for (const file of ['signing-key.json', 'clients.json', 'grants.json', 'directory.json']) {
      expect(((await stat(join(oauthDir, file))).mode & 0o777).toString(8), file).toBe('600');
    }
    const directory = JSON.parse(await readFile(join(oauthDir, 'directory.json'), 'utf8')) as {
      inboxes: Array<{ address: string; accountId: string; ownerId?: string }>;
    };
    // An inbox an agent signed up for gets a UUID too, owned by nobody.
    expect(directory.inboxes.find((inbox) => inbox.address === powAddress)).toEqual({
      address: powAddress,
      accountId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      createdAt: expect.any(String),
    });
    const grants = await readFile(join(oauthDir, 'grants.json'), 'utf8');
    expect(grants).not.toContain(connected.tokens.refresh_token);
  });
});
