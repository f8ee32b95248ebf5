import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sandboxCommandInput, sandboxOptionsOf } from '../../src/sandbox-command-input.js';
import { runSandboxCommand } from '../../src/sandbox-command.js';
import { pollUntil } from '../helpers/sandbox.js';
import { withReadyLine } from '../helpers/sandbox-process.js';
import { connect } from './oauth-test-client.js';

const builtCli = fileURLToPath(new URL('../../../dist/bin.js', import.meta.url));
const builtSandboxMain = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

interface ReadyLine {
  authUrl: string;
  apiUrl: string;
  oauth: {
    metadataUrl: string;
    issuer: string;
    jmapResource: string;
    accessTokenSeconds: number;
    autoApproved: Array<{ person: string; personId: string; inboxes: Array<{ accountId: string; address: string }> }>;
  };
}

describe('--oauth-auto-approve and --oauth-access-ttl', () => {
  it("print the metadata URL, the resource and each auto-approved person's inboxes with their accountIds in the --json line", async () => {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const controller = new AbortController();
    const input = sandboxCommandInput.parse({
      json: true,
      difficulty: '2',
      oauth_auto_approve: ['Ada: ada-inbox, ops@Acme.test', 'Bob:bob-inbox'],
      oauth_access_ttl: '60',
    });
    const running = runSandboxCommand(sandboxOptionsOf(input), {
      stdout,
      stderr: new PassThrough(),
      signal: controller.signal,
    });
    const line = await pollUntil(() => (text.includes('\n') ? text : undefined), 15_000, 'the ready line');
    const ready = JSON.parse(line) as ReadyLine;
    expect(ready.oauth).toEqual({
      metadataUrl: `${ready.authUrl}/.well-known/oauth-authorization-server`,
      issuer: ready.authUrl,
      jmapResource: `${ready.apiUrl}/jmap`,
      accessTokenSeconds: 60,
      autoApproved: [
        {
          person: 'Ada',
          personId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          inboxes: [
            { accountId: expect.stringMatching(/^[0-9a-f-]{36}$/), address: 'ada-inbox@agent-mailbox.test' },
            { accountId: expect.any(String), address: 'ops@acme.test' },
          ],
        },
        {
          person: 'Bob',
          personId: expect.any(String),
          inboxes: [{ accountId: expect.any(String), address: 'bob-inbox@agent-mailbox.test' }],
        },
      ],
    });
    controller.abort();
    expect(await running).toBe(0);
  });

  it('names the metadata URL and the auto-approved inboxes in the banner', async () => {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const controller = new AbortController();
    const running = runSandboxCommand(
      { difficulty: 2, oauthAutoApprove: [{ person: 'Ada', inboxes: ['ada-inbox'] }] },
      { stdout, stderr: new PassThrough(), signal: controller.signal },
    );
    const banner = await pollUntil(() => (text.includes('Ctrl+C') ? text : undefined), 15_000, 'the banner');
    expect(banner).toMatch(/metadata {4}http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server/);
    expect(banner).toMatch(/auto-approve Ada: ada-inbox@agent-mailbox\.test \([0-9a-f-]{36}\)/);
    expect(banner).toMatch(/access 900 s/);
    controller.abort();
    expect(await running).toBe(0);
  });

  it.each([
    [['ada'], /PERSON:INBOX1,INBOX2/],
    [['ada:'], /PERSON:INBOX1,INBOX2/],
    [[':inbox'], /PERSON:INBOX1,INBOX2/],
    [['ada:a,,b'], /PERSON:INBOX1,INBOX2/],
  ])('refuses --oauth-auto-approve %j with the usage', (values, message) => {
    const parsed = sandboxCommandInput.safeParse({ oauth_auto_approve: values });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(message);
  });

  it('refuses an access lifetime of 0 and a fraction', () => {
    for (const value of ['0', '1.5', 'soon'])
      expect(sandboxCommandInput.safeParse({ oauth_access_ttl: value }).success, value).toBe(false);
  });

  it('returns 1 with a hint when an inbox name breaks the rules, or an inbox belongs to another person', async () => {
    for (const [spec, message] of [
      [[{ person: 'Ada', inboxes: ['ab'] }], /has 2 characters/],
      [
        [
          { person: 'Ada', inboxes: ['shared-inbox'] },
          { person: 'Bob', inboxes: ['shared-inbox'] },
        ],
        /shared-inbox@agent-mailbox\.test exists and does not belong to Bob/,
      ],
    ] as const) {
      let stderr = '';
      const errors = new PassThrough();
      errors.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await runSandboxCommand(
        {
          difficulty: 2,
          oauthAutoApprove: spec.map((entry) => ({ person: entry.person, inboxes: [...entry.inboxes] })),
        },
        { stdout: new PassThrough(), stderr: errors, signal: new AbortController().signal },
      );
      expect(code).toBe(1);
      expect(stderr).toMatch(message);
    }
  });

  it('take repeated flags in the built CLI and the direct sandbox entry, and the lifetime shows in expires_in', async () => {
    for (const entry of [[builtCli, 'sandbox'], [builtSandboxMain]]) {
      await withReadyLine<ReadyLine>(
        [
          ...entry,
          '--json',
          '--difficulty',
          '2',
          '--oauth-auto-approve',
          'ada:ada-inbox',
          '--oauth-auto-approve',
          'bob:bob-inbox,ops@acme.test',
          '--oauth-access-ttl',
          '5',
        ],
        async (ready) => {
          expect(
            ready.oauth.autoApproved.map((person) => [person.person, person.inboxes.map((inbox) => inbox.address)]),
          ).toEqual([
            ['ada', ['ada-inbox@agent-mailbox.test']],
            ['bob', ['bob-inbox@agent-mailbox.test', 'ops@acme.test']],
          ]);
          const running = { authUrl: ready.authUrl, oauth: ready.oauth } as Parameters<typeof connect>[0];
          expect((await connect(running, { login_hint: 'bob' })).tokens.expires_in).toBe(5);
        },
      );
    }
  });
});
