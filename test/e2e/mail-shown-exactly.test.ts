import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectMcp,
  printStderrOnFailure,
  resultText,
  sandboxEnv,
  structured,
  type McpConnection,
} from '../helpers/connect-mcp.js';
import { emailIdsIn } from '../helpers/jmap-result-walk.js';
import { runCliInProcess } from '../helpers/run-cli.js';
import { pollUntil, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';

// Mail is data: what a stranger wrote reaches the agent exactly as written, through both doors and
// both output forms. Only the secrets this tool holds are masked, wherever they appear.
const sandbox = await startTestSandbox();
const workDir = await mkdtemp(join(tmpdir(), 'agent-mailbox-exact-'));
afterAll(() => rm(workDir, { recursive: true, force: true }));
const dir = join(workDir, 'inbox');
const env = sandboxEnv(sandbox, dir);

const subject = 'Bearer of good news';
const body = 'The bearer for JMAP is here. api_key: see the docs.';
// Someone else's token quoted in a mail: not a secret of this tool, so it is shown as written.
const foreignJwt =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzb21lb25lIGVsc2UifQ.c29tZW9uZS1lbHNlcy1zaWduYXR1cmU';

async function deliver(message: { subject: string; text: string }): Promise<void> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: sandbox.smtpPort,
    secure: false,
    ignoreTLS: true,
  });
  try {
    await transport.sendMail({ from: 'Stranger <stranger@outside.test>', to: inbox, ...message });
  } finally {
    transport.close();
  }
}

let inbox = '';
let apiKey = '';

beforeAll(async () => {
  const registered = await runCliInProcess(
    ['register', '--username', 'exact-reader', '--watch', 'on-demand', '--json'],
    { env },
  );
  expect(registered.code, registered.stderr).toBe(0);
  inbox = String((registered.json as { inbox: string }).inbox);
  apiKey = (JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as { apiKey: string }).apiKey;
  await deliver({ subject, text: `${body}\n\nQuoted token: ${foreignJwt}` });
  await deliver({ subject: 'Your key', text: `Someone pasted your key: ${apiKey} — please rotate it.` });
});

async function cli(args: string[]): Promise<{ code: number; stdout: string; json: unknown }> {
  const run = await runCliInProcess(['jmap_request', ...args, '--credentials-dir', dir], { env });
  expect(run.code, run.stderr).toBe(0);
  return run;
}

async function mailIds(): Promise<{ exact: string; leak: string }> {
  const found = await pollUntil(
    async () => {
      const listed = await cli(['--ops-file', 'list_inbox', '--json']);
      const list = JSON.stringify(listed.json);
      return list.includes(subject) && list.includes('Your key') ? (listed.json as Record<string, unknown>) : undefined;
    },
    20_000,
    'both mails listed',
  );
  const [first, second] = emailIdsIn(found);
  // list_inbox is newest first: the key mail came second.
  return { leak: String(first), exact: String(second) };
}

describe('mail is shown exactly as it was written', () => {
  let server: McpConnection | undefined;
  printStderrOnFailure(() => [server]);
  afterAll(() => server?.close());

  it("lists and reads the subject and body unchanged in the CLI text and --json, and masks only the inbox's own apiKey", async () => {
    const ids = await mailIds();
    const listingText = (await cli(['--ops-file', 'list_inbox'])).stdout;
    const listingJson = JSON.stringify((await cli(['--ops-file', 'list_inbox', '--json'])).json);
    const readText = (await cli(['--ops-file', 'read_message', '--vars', JSON.stringify({ MAIL_ID: ids.exact })]))
      .stdout;
    const readJson = (
      await cli(['--ops-file', 'read_message', '--vars', JSON.stringify({ MAIL_ID: ids.exact }), '--json'])
    ).json;
    const leakText = (await cli(['--ops-file', 'read_message', '--vars', JSON.stringify({ MAIL_ID: ids.leak })]))
      .stdout;
    const leakJson = JSON.stringify(
      (await cli(['--ops-file', 'read_message', '--vars', JSON.stringify({ MAIL_ID: ids.leak }), '--json'])).json,
    );

    expect(listingText).toContain(subject);
    expect(listingJson).toContain(JSON.stringify(subject));
    expect(readText).toContain(body);
    expect(readText).toContain(foreignJwt);
    const readValues = JSON.stringify(readJson);
    expect(readValues).toContain(JSON.stringify(subject));
    expect(readValues).toContain(body);
    expect(readValues).toContain(foreignJwt);
    // The listing also holds the mail that quotes the apiKey: that preview is the one masked place.
    expect(listingText).toContain(`Preview: ${body}`);
    for (const shown of [listingText, listingJson]) expect(shown.split('redacted>').length - 1).toBe(1);
    for (const shown of [readText, readValues]) expect(shown).not.toContain('redacted>');

    expect(leakText).not.toContain(apiKey);
    expect(leakJson).not.toContain(apiKey);
    expect(leakText).toContain('Someone pasted your key: <secret redacted>');
  });

  it('gives the same exact values in MCP structuredContent and text', async () => {
    const ids = await mailIds();
    server = await connectMcp({ env });
    const call = async (vars: Record<string, unknown>, ops_file: string): Promise<{ text: string; values: string }> => {
      const result = await server!.client.callTool(
        { name: 'jmap_request', arguments: { ops_file, vars, credentials_dir: dir } },
        undefined,
        { timeout: 60_000 },
      );
      expect(result.isError, resultText(result)).not.toBe(true);
      return { text: resultText(result), values: JSON.stringify(structured(result)) };
    };
    const listing = await call({}, 'list_inbox');
    const read = await call({ MAIL_ID: ids.exact }, 'read_message');
    const leak = await call({ MAIL_ID: ids.leak }, 'read_message');
    expect(listing.text).toContain(subject);
    expect(listing.values).toContain(JSON.stringify(subject));
    expect(read.text).toContain(body);
    expect(read.values).toContain(body);
    expect(read.values).toContain(foreignJwt);
    expect(listing.text).toContain(`Preview: ${body}`);
    for (const shown of [listing.text, listing.values]) expect(shown.split('redacted>').length - 1).toBe(1);
    for (const shown of [read.text, read.values]) expect(shown).not.toContain('redacted>');
    expect(leak.text + leak.values).not.toContain(apiKey);
    expect(leak.values).toContain('<secret redacted>');
  });
});

describe('help is shown exactly as written', () => {
  it('has no masked word in any topic, through the CLI', async () => {
    const overview = await runCliInProcess(['help', '--json'], { env });
    expect(overview.code).toBe(0);
    const topics = (overview.json as { topics: string[] }).topics;
    expect(topics.length).toBeGreaterThan(5);
    for (const topic of topics) {
      const shown = await runCliInProcess(['help', topic], { env });
      expect(shown.code, `help ${topic}`).toBe(0);
      expect(shown.stdout, `help ${topic}`).not.toContain('redacted>');
    }
  });
});
