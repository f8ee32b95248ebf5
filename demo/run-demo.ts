import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellCommandFor } from '../src/render/shell-command.js';
import { shellQuote } from '../src/render/shell-quote.js';
import { startSandbox } from '../sandbox/src/start-sandbox.js';

/**
 * `npm run demo`: the main job on the built-in sandbox, step by step, through the real CLI as a
 * user or a shell agent would type it. Nothing leaves 127.0.0.1.
 */

const cli = fileURLToPath(new URL('../bin.js', import.meta.url));
// The demo shows each command as the CLI itself spells it in the next steps it prints.
const typed = shellCommandFor({ cliPath: cli, env: process.env, cwd: process.cwd() });
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

interface Step {
  code: number;
  json: Record<string, unknown>;
}

/** `asAgentSees`: print the CLI's own text (what a shell agent reads) instead of reading JSON. */
function agentMailbox(
  args: string[],
  env: Record<string, string>,
  options: { asAgentSees?: boolean } = {},
): Promise<Step> {
  out(`\n$ ${typed} ${args.map(shellQuote).join(' ')}`);
  return new Promise((resolve, reject) => {
    // The demo reads results as data: jmap_request prints its exact JSON only with --json.
    const argv = args[0] === 'jmap_request' && !options.asAgentSees ? [...args, '--json'] : args;
    const child = spawn(process.execPath, [cli, ...argv], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (options.asAgentSees) out(stdout.trimEnd().replace(/^/gm, '  │ '));
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        json = { text: stdout };
      }
      resolve({ code: code ?? 1, json });
    });
  });
}

function emailsOf(step: Step): Record<string, unknown>[] {
  const responses = ((step.json.response as { methodResponses?: unknown[] } | undefined)?.methodResponses ?? []) as [
    string,
    Record<string, unknown>,
    string,
  ][];
  const get = responses.find(([name]) => name === 'Email/get');
  return (get?.[1].list as Record<string, unknown>[] | undefined) ?? [];
}

function must(step: Step, what: string): Step {
  if (step.code !== 0)
    throw new Error(`${what} failed (exit ${step.code}): ${JSON.stringify(step.json).slice(0, 600)}`);
  return step;
}

async function main(): Promise<void> {
  const sandbox = await startSandbox({ log: () => undefined });
  const workdir = await mkdtemp(join(tmpdir(), 'agent-mailbox-demo-'));
  const env = {
    AGENT_MAILBOX_AUTH_URL: sandbox.authUrl,
    AGENT_MAILBOX_API_URL: sandbox.apiUrl,
    AGENT_MAILBOX_SCRYPT_SALT: sandbox.salt,
    AGENT_MAILBOX_INBOX_DOMAIN: sandbox.domain,
  };
  out(
    `Sandbox running: auth ${sandbox.authUrl}, JMAP ${sandbox.apiUrl}, proof-of-work difficulty ${sandbox.difficulty}.`,
  );
  try {
    const alice = join(workdir, 'alice');
    const bob = join(workdir, 'bob');
    const a = must(
      await agentMailbox(
        ['register', '--username', 'alice-demo', '--watch', 'on-demand', '--credentials-dir', alice],
        env,
      ),
      'register alice',
    );
    out(
      `  → inbox ${String(a.json.inbox)}, apiKey ${String(a.json.apiKeyMasked)} (stored in ${String(a.json.credentialsFile)}), ${JSON.stringify(a.json.pow)}`,
    );
    const b = must(
      await agentMailbox(['register', '--username', 'bob-demo', '--watch', 'on-demand', '--credentials-dir', bob], env),
      'register bob',
    );
    out(`  → inbox ${String(b.json.inbox)}`);

    const send = (dir: string, vars: Record<string, string>) =>
      agentMailbox(
        ['jmap_request', '--ops-file', 'send_mail', '--vars', JSON.stringify(vars), '--credentials-dir', dir],
        env,
      );
    must(
      await send(alice, {
        TO: String(a.json.inbox),
        SUBJECT: 'Note to self',
        BODY: 'Remember: the sandbox is offline.',
      }),
      'send to self',
    );
    must(
      await send(alice, { TO: String(b.json.inbox), SUBJECT: 'Hello Bob 👋', BODY: 'Line one,\n"quoted" line two.' }),
      'send to bob',
    );
    must(
      await send(alice, {
        TO: 'carol@example.com',
        SUBJECT: 'To the outside world',
        BODY: 'This lands in the sandbox outbox log.',
      }),
      'send outside',
    );
    const outbox = await sandbox.outbox();
    out(
      `  → sandbox outbox now holds ${outbox.length} message(s) for the outside world: ${outbox.map((m) => m.to.join(',')).join('; ')}`,
    );

    const list = must(
      await agentMailbox(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', bob], env),
      'list bob',
    );
    const first = emailsOf(list)[0];
    if (!first) throw new Error("Bob's inbox is empty");
    out(`  → Bob has ${emailsOf(list).length} message(s); newest id ${String(first.id)}`);
    must(
      await agentMailbox(
        [
          'jmap_request',
          '--ops-file',
          'read_message',
          '--vars',
          JSON.stringify({ MAIL_ID: first.id }),
          '--credentials-dir',
          bob,
        ],
        env,
        { asAgentSees: true },
      ),
      'read',
    );
    must(
      await agentMailbox(
        [
          'jmap_request',
          '--ops-file',
          'reply',
          '--vars',
          JSON.stringify({ MAIL_ID: first.id, BODY: 'Hi Alice, got it!' }),
          '--credentials-dir',
          bob,
        ],
        env,
      ),
      'reply',
    );
    must(
      await agentMailbox(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', alice], env, {
        asAgentSees: true,
      }),
      'list alice',
    );
    out(
      '\nDemo finished: sign-up with proof of work, sending, the outbox, listing, reading and a threaded reply all ran against the sandbox.',
    );
  } finally {
    await sandbox.close();
    await rm(workdir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
