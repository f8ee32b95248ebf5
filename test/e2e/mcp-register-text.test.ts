import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectMcp,
  printStderrOnFailure,
  resultText,
  sandboxEnv,
  structured,
  type McpConnection,
} from '../helpers/connect-mcp.js';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { createStandInCrontab, type TestCrontab } from '../helpers/test-crontab.js';

// What the model reads after register and after a send, with a crontab program present (a
// stand-in whose table is a file here), so that an on-demand text that names it would show.
const sandbox = await startTestSandbox({ difficulty: 4 });
const workDir = await mkdtemp(join(tmpdir(), 'agent-mailbox-register-text-'));
afterAll(() => rm(workDir, { recursive: true, force: true }));

describe('the words register and a send give the model', () => {
  let server: McpConnection | undefined;
  let crontab: TestCrontab;
  printStderrOnFailure(() => [server]);

  beforeAll(async () => {
    crontab = await createStandInCrontab(workDir);
    server = await connectMcp({
      env: { ...sandboxEnv(sandbox, join(workDir, 'default')), AGENT_MAILBOX_CRONTAB: crontab.bin },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await server!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    expect(result.isError, resultText(result)).toBeFalsy();
    return { text: resultText(result), content: structured(result) };
  };

  it('answers an on-demand register in sentences, without a job table to look at, and keeps the exact values structured', async () => {
    const dir = join(workDir, 'on-demand');
    const { text, content } = await call('register', {
      username: 'text-agent',
      watch: 'on-demand',
      credentials_dir: dir,
    });
    const inbox = `text-agent@${sandbox.domain}`;
    expect(text.split('\n')[0]).toBe(`Registered a new inbox: ${inbox}.`);
    expect(text).toContain(`Credentials directory: ${dir} (apiKey ${String(content.apiKeyMasked)}).`);
    expect(text).toContain('Daily job: on-demand: no scheduled job; read the inbox when asked.');
    expect(text).toMatch(/^Next: Inbox \S+ is ready; list its mail with jmap_request/m);
    expect(text).not.toContain('{"');
    expect(text).not.toMatch(/crontab/);
    expect(content).toMatchObject({ mode: 'signup', inbox, credentialsDir: dir, watch: 'on-demand' });
    expect(content.apiKeyMasked).toMatch(/^amk_…/);
    const verify = (content.watchJob as { verify: string[] }).verify;
    expect(verify).toHaveLength(1);
    expect(verify[0]).toMatch(/ watch status --credentials-dir /);

    // Again with the same username: says so, changes nothing.
    const again = await call('register', { username: 'text-agent', watch: 'on-demand', credentials_dir: dir });
    expect(again.text.split('\n')[0]).toBe(`This credentials directory already holds ${inbox}.`);
    expect(again.content).toMatchObject({ mode: 'existing', inbox });
  });

  it('names how to verify and remove the job when watch=scheduled installed one', async () => {
    const dir = join(workDir, 'scheduled');
    const { text, content } = await call('register', {
      username: 'text-agent2',
      watch: 'scheduled',
      credentials_dir: dir,
    });
    expect(content).toMatchObject({ watch: 'scheduled', watchJob: { installed: true } });
    expect(text).toMatch(/^Daily job: A crontab job runs/m);
    expect(text).toContain('\nVerify: crontab -l\n');
    expect(text).toMatch(/^Remove: .* watch remove --credentials-dir /m);
    expect(crontab.list()).toContain(dir);
  });

  it('calls a sent mail sent, while the structured result keeps the creation ids', async () => {
    const sender = join(workDir, 'on-demand');
    const { text, content } = await call('jmap_request', {
      ops_file: 'send_mail',
      vars: { TO: `text-agent2@${sandbox.domain}`, SUBJECT: 'Words', BODY: 'Hello.' },
      credentials_dir: sender,
    });
    expect(text).toMatch(/^Sent: message M\S+ \(submission S\S+\)\.$/m);
    expect(text).not.toMatch(/draft/i);
    expect(content.created).toEqual([
      expect.objectContaining({ method: 'Email/set', creationId: 'draft' }),
      expect.objectContaining({ method: 'EmailSubmission/set', creationId: 'send' }),
    ]);
  });
});
