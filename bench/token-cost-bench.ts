import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import nodemailer from 'nodemailer';
import { listPresets } from '../src/presets/load-preset.js';
import { sandboxClientEnv } from '../sandbox/src/sandbox-command.js';
import { startSandbox } from '../sandbox/src/start-sandbox.js';
import type { BenchSection } from './bench-section.js';
import { benchDnsRecords, newsletterHtml, ordinaryMail } from './token-cost-fixtures.js';
import { isRecord } from '../src/is-record.js';

/**
 * What the model reads (MCP `content` text, chars/4 ≈ tokens) for the common
 * reads, through the spawned stdio server against an in-process sandbox filled over SMTP. The
 * same section runs on any build, so a before/after comparison is one `npm run bench` on each.
 */

interface TextResult {
  text: string;
  structured: unknown;
  isError: boolean;
}

/** Runs every measurement; returns one printed line per figure. */
export async function runTokenCostBench(log: (line: string) => void = () => undefined): Promise<string[]> {
  const sandbox = await startSandbox({ difficulty: 4, dns: benchDnsRecords() });
  const workDir = await mkdtemp(join(tmpdir(), 'agent-mailbox-tokens-'));
  const env = sandboxClientEnv(sandbox, join(workDir, 'credentials'));
  const client = new Client({ name: 'agent-mailbox-token-bench', version: '0' });
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [fileURLToPath(new URL('../bin.js', import.meta.url)), 'mcp'],
        env,
        stderr: 'ignore',
      }),
    );
    const call = async (args: Record<string, unknown>): Promise<TextResult> => {
      const result = await client.callTool({ name: 'jmap_request', arguments: args }, undefined, { timeout: 120_000 });
      const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
      return {
        text: content.map((c) => c.text ?? '').join('\n'),
        structured: result.structuredContent,
        isError: result.isError === true,
      };
    };
    const registered = await client.callTool(
      { name: 'register', arguments: { username: 'token-bench', watch: 'on-demand' } },
      undefined,
      {
        timeout: 120_000,
      },
    );
    if (registered.isError) throw new Error('register failed');
    const inbox = `token-bench@${sandbox.domain}`;

    log(
      'token bench: delivering 50 ordinary mails (5 forged, 5 with a display name claiming another sender, 7 HTML with a hidden pre-header), a newsletter and a 10-message thread over SMTP',
    );
    const smtp = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    for (let i = 0; i < 50; i++) {
      const { envelopeFrom, ...mail } = ordinaryMail(i);
      await smtp.sendMail({
        ...mail,
        to: inbox,
        ...(envelopeFrom ? { envelope: { from: envelopeFrom, to: inbox } } : {}),
      });
    }
    await smtp.sendMail({
      from: 'News <news@example.org>',
      to: inbox,
      subject: 'Weekly digest',
      html: newsletterHtml(43_000),
    });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const messageId = `<thread-${i}@example.net>`;
      ids.push(messageId);
      await smtp.sendMail({
        from: i % 2 === 0 ? 'Ana Lima <ana@example.net>' : 'Ben Ode <ben@example.net>',
        to: inbox,
        subject: i === 0 ? 'Planning the offsite' : 'Re: Planning the offsite',
        text: `${['Sounds good.', 'I can do Tuesday.', 'Let us book the room.'][i % 3]} Point ${i}: ${'we should decide on the agenda and the budget soon. '.repeat(4)}\n\n${i > 0 ? `On Monday, someone wrote:\n> ${'earlier text of the conversation '.repeat(6)}\n` : ''}`,
        messageId,
        ...(i > 0 ? { inReplyTo: ids[i - 1], references: ids.slice(0, i).join(' ') } : {}),
      });
    }
    smtp.close();

    const lines: string[] = [];
    const measure = (label: string, result: TextResult): void => {
      const structuredChars = JSON.stringify(result.structured ?? {}).length;
      lines.push(
        `${label.padEnd(38)} ${String(Math.round(result.text.length / 4)).padStart(6)} tokens of text${result.isError ? ' (isError)' : ''}; structuredContent ${Math.round(structuredChars / 4)} tokens`,
      );
    };
    // list_new first, so its first run sees all 61 mails (it lists LIMIT of them).
    measure('list_new first run, LIMIT 50', await call({ ops_file: 'list_new', vars: { LIMIT: 50 } }));
    measure('list_inbox, LIMIT 50', await call({ ops_file: 'list_inbox', vars: { LIMIT: 50 } }));
    measure(
      'search over 50 (FROM example.com)',
      await call({ ops_file: 'search', vars: { FROM: 'example.com', LIMIT: 50 } }),
    );

    const found = await call({ ops_file: 'search', vars: { SUBJECT: 'Weekly digest', LIMIT: 1 } });
    const newsletterId = firstEmailId(found.structured);
    if (newsletterId)
      measure(
        'read_message, 43 KB HTML newsletter',
        await call({ ops_file: 'read_message', vars: { MAIL_ID: newsletterId } }),
      );

    const threadHit = await call({ ops_file: 'search', vars: { SUBJECT: 'offsite', LIMIT: 1 } });
    const threadMailId = firstEmailId(threadHit.structured);
    if (threadMailId) {
      const hasReadThread = (await listPresets()).some((p) => p.name === 'read_thread');
      const threadRead = hasReadThread
        ? await call({ ops_file: 'read_thread', vars: { MAIL_ID: threadMailId } })
        : await call({ ops: JSON.stringify(threadOps(threadMailId)) });
      measure(`10-message thread (${hasReadThread ? 'read_thread' : 'raw Thread/get + Email/get'})`, threadRead);
    }
    return lines;
  } finally {
    await client.close().catch(() => undefined);
    await sandbox.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** What an agent had to send before read_thread existed: the thread's emails with their text bodies. */
function threadOps(mailId: string): unknown[] {
  return [
    ['Email/get', { accountId: '$ACCOUNT_ID', ids: [mailId], properties: ['threadId'] }, 'm'],
    [
      'Thread/get',
      { accountId: '$ACCOUNT_ID', '#ids': { resultOf: 'm', name: 'Email/get', path: '/list/*/threadId' } },
      't',
    ],
    [
      'Email/get',
      {
        accountId: '$ACCOUNT_ID',
        '#ids': { resultOf: 't', name: 'Thread/get', path: '/list/*/emailIds' },
        properties: ['id', 'from', 'to', 'subject', 'receivedAt', 'textBody', 'bodyValues'],
        fetchTextBodyValues: true,
      },
      'g',
    ],
  ];
}

/** The first Email id in any Email/get response inside a result (wherever the result nests it). */
function firstEmailId(node: unknown): string | undefined {
  if (Array.isArray(node)) {
    if (node[0] === 'Email/get' && isRecord(node[1]) && Array.isArray(node[1].list)) {
      const first: unknown = node[1].list[0];
      if (isRecord(first) && typeof first.id === 'string') return first.id;
    }
    for (const child of node) {
      const id = firstEmailId(child);
      if (id) return id;
    }
    return undefined;
  }
  if (!isRecord(node)) return undefined;
  for (const child of Object.values(node)) {
    const id = firstEmailId(child);
    if (id) return id;
  }
  return undefined;
}

export const tokenCostBenchSection: BenchSection = {
  title: 'Model-facing result size (chars/4) of the common reads',
  run: async () => (await runTokenCostBench((line) => process.stderr.write(`${line}\n`))).join('\n'),
};
