import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { expect } from 'vitest';
import { createAccountRegistry, type ObservableAccountRegistry } from '../../src/auth/create-account-registry.js';
import { silentLogger } from '../../src/log.js';
import type { PolicyChange } from '../../src/policy/policy-change.js';
import { updatePolicyLayer } from '../../src/policy/policy-store.js';
import { runJmapRequest } from '../../src/request/run-jmap-request.js';
import { sandboxClientEnv } from '../../sandbox/src/sandbox-command.js';
import { startSandbox, type RunningSandbox, type SandboxBackendKind } from '../../sandbox/src/start-sandbox.js';
import { eventually } from '../cyrus/cyrus-test-kit.js';
import { runCliInProcess, type CliRun } from '../helpers/run-cli.js';
import { sendRaw, zoneOf, type OutsideDomain } from '../../sandbox/test/mail-auth/mail-auth-kit.js';

/**
 * What the trust scenarios share on both backends: a sandbox that publishes the outside domains'
 * DNS records, inboxes registered in this process, mail from outside composed and signed here and
 * sent over SMTP, and the CLI run in this process exactly as an agent types it.
 */

export type MethodResponse = [string, Record<string, unknown>, string];
export interface JmapRun {
  ok: boolean;
  summary: string;
  failures: Array<Record<string, unknown>>;
  response?: { methodResponses: MethodResponse[] };
  steps?: { response?: { methodResponses: MethodResponse[] } }[];
  trust?: Record<string, Record<string, unknown>>;
  held?: { count: number; rules: { layer: string; rule: string; count: number }[]; requested: string[] };
  error?: { code: string; message: string; hint: string };
}

export interface OutsideMail {
  from: string;
  to: string;
  subject: string;
  text?: string;
  html?: string;
  /** Signs the message with this domain's key. */
  signedBy?: OutsideDomain;
  /** MAIL FROM; the From address when absent. */
  envelopeFrom?: string;
  /** Header lines written above the composed ones (a sender's forged fields). */
  headers?: string[];
  attachments?: { filename: string; content: string; contentType: string }[];
  messageId?: string;
  inReplyTo?: string;
}

export interface TrustWorld {
  sandbox: RunningSandbox;
  base: string;
  env: Record<string, string>;
  /** Registers an inbox in `base/<name>`; returns its address and directory. */
  register(name: string): Promise<{ address: string; dir: string }>;
  /** Composes, signs and sends a message from outside. */
  send(mail: OutsideMail): Promise<void>;
  /** jmap_request through the CLI, --json. */
  jmap(dir: string, args: string[], env?: Record<string, string>): Promise<CliRun>;
  /** A preset, --json. */
  preset(dir: string, name: string, vars?: Record<string, unknown>, extra?: string[]): Promise<CliRun>;
  /** A preset as the model reads it (the text, no --json). */
  text(dir: string, name: string, vars?: Record<string, unknown>, extra?: string[]): Promise<CliRun>;
  /** Subjects of the Inbox as the operator sees it (held mail included), through the core in this process. */
  operatorSubjects(dir: string): Promise<string[]>;
  /** Writes the inbox's own policy layer (no terminal needed in-process: this is the operator's file). */
  policy(dir: string, ...changes: PolicyChange[]): Promise<void>;
  close(): Promise<void>;
}

export async function startTrustWorld(kind: SandboxBackendKind, domains: OutsideDomain[]): Promise<TrustWorld> {
  const sandbox = await startSandbox({
    backend: kind,
    difficulty: 2,
    rateLimit: false,
    dns: zoneOf(...domains.map((d) => d.records)),
  });
  const base = await mkdtemp(join(tmpdir(), `trust-${kind}-`));
  const env = { ...sandboxClientEnv(sandbox, join(base, 'credentials')), HOME: join(base, 'home') };
  const registry: ObservableAccountRegistry = createAccountRegistry({
    configInputs: { flags: {}, env },
    log: silentLogger,
    powWorkers: 1,
  });
  const jmap = (dir: string, args: string[], extraEnv: Record<string, string> = {}) =>
    runCliInProcess(['jmap_request', ...args, '--credentials-dir', dir], { env: { ...env, ...extraEnv } });
  return {
    sandbox,
    base,
    env,
    async register(name) {
      const dir = join(base, name);
      const outcome = await registry
        .open(dir)
        .register({ username: `${name}-${kind}`.slice(0, 21), watch: 'on-demand' });
      return { address: outcome.inbox, dir };
    },
    async send(mail) {
      const built = await new MailComposer({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        ...(mail.text !== undefined ? { text: mail.text } : {}),
        ...(mail.html !== undefined ? { html: mail.html } : {}),
        ...(mail.attachments ? { attachments: mail.attachments } : {}),
        ...(mail.messageId ? { messageId: mail.messageId } : {}),
        ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo, references: mail.inReplyTo } : {}),
      })
        .compile()
        .build();
      const raw = Buffer.concat([
        Buffer.from((mail.headers ?? []).map((line) => `${line}\r\n`).join(''), 'latin1'),
        built,
      ]);
      const signed = mail.signedBy ? await mail.signedBy.sign(raw) : raw;
      const envelopeFrom = mail.envelopeFrom ?? /<([^>]+)>\s*$/.exec(mail.from)?.[1] ?? mail.from;
      await sendRaw(sandbox.smtpPort, signed, { from: envelopeFrom, to: mail.to });
    },
    jmap: (dir, args, extraEnv) => jmap(dir, [...args, '--json'], extraEnv),
    preset: (dir, name, vars = {}, extra = []) =>
      jmap(dir, ['--ops-file', name, '--vars', JSON.stringify(vars), ...extra, '--json']),
    text: (dir, name, vars = {}, extra = []) =>
      jmap(dir, ['--ops-file', name, '--vars', JSON.stringify(vars), ...extra]),
    async operatorSubjects(dir) {
      const result = await runJmapRequest(
        registry.open(dir),
        { ops_file: 'list_inbox', vars: { LIMIT: 100 }, include_held: true },
        { signal: new AbortController().signal, log: silentLogger },
      );
      const list = result.response?.methodResponses.find(([name]) => name === 'Email/get')?.[1].list as
        { subject?: string }[] | undefined;
      return (list ?? []).map((m) => m.subject ?? '');
    },
    async policy(dir, ...changes) {
      for (const change of changes) await updatePolicyLayer(join(dir, 'policy.json'), change, async () => true);
    },
    async close() {
      registry.close();
      await sandbox.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** The run's JSON, after checking it exited 0. */
export function ok(run: CliRun): JmapRun {
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  return run.json as JmapRun;
}

/** The arguments of one method response of a --json run (one step, or the last step that has it). */
export function resultOf(run: JmapRun, callId: string): Record<string, unknown> {
  const responses = [run.response, ...(run.steps ?? []).map((s) => s.response)].filter((r) => r !== undefined);
  for (const response of responses.reverse()) {
    const found = response?.methodResponses.find((r) => r[2] === callId);
    if (found) return found[1];
  }
  throw new Error(`no response ${callId}: ${JSON.stringify(run).slice(0, 500)}`);
}

/** The listed messages of a listing preset run. */
export function listed(run: JmapRun): Array<{ id: string; subject: string } & Record<string, unknown>> {
  return resultOf(run, 'get')['list'] as Array<{ id: string; subject: string } & Record<string, unknown>>;
}

/** Lists the inbox until every subject is there (delivery finishes after SMTP's answer, on Cyrus over LMTP). */
export async function untilListed(
  world: TrustWorld,
  dir: string,
  subjects: readonly string[],
): Promise<Map<string, string>> {
  return eventually(async () => {
    const run = await world.preset(dir, 'list_inbox', { LIMIT: 100 });
    const ids = new Map(listed(ok(run)).map((m) => [m.subject, m.id]));
    return subjects.every((s) => ids.has(s)) ? ids : undefined;
  }, 15_000);
}

/** The fenced block of the entry that starts with `head` in a text result. */
export function entryOf(text: string, head: string): string {
  const start = text.indexOf(head);
  if (start < 0) throw new Error(`no entry "${head}" in:\n${text}`);
  const end = text.indexOf('>>>', start);
  return text.slice(start, end < 0 ? undefined : end + 3);
}
