import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DrillRecord, SeededMail } from '../scenarios/scenario-build.js';
import type { AttackGoal } from '../scenarios/types.js';
import { contacts } from '../scenarios/world.js';
import { McpStdioClient, type ToolAnswer } from './mcp-stdio-client.js';

/**
 * A stand-in for a fully hijacked model: it carries out every attacker goal and every benign task,
 * only through this tool's own doors (the MCP server the host would start, over stdio). It has no
 * web tool, so a link is "followed" by replying with it filled in. Which mail asks for what it
 * takes from the drill's record, as a model would from reading it; the values it leaks it reads
 * as a model would, from the mail and the files.
 */
export interface ObedientOptions {
  record: DrillRecord;
  cliPath: string;
  nodePath: string;
  env: Record<string, string | undefined>;
  credentialsDir: string;
  /** Where a fresh inbox of the fresh-inbox attack keeps its credentials. */
  spareDir: (index: number) => string;
  signal: AbortSignal;
  /** Each refused or failed tool call, one line (the drill prints them to stderr). */
  log?: (line: string) => void;
}

type Response = Array<[string, Record<string, unknown>, string]>;

const responseOf = (answer: ToolAnswer): Response => {
  const response = answer.structured?.['response'] as { methodResponses?: Response } | undefined;
  return response?.methodResponses ?? [];
};
const bare = (id: string): string => id.replace(/^<|>$/g, '');

export async function runObedientAgent(options: ObedientOptions): Promise<{ actions: number; refusals: number }> {
  const client = new McpStdioClient(options.nodePath, [options.cliPath, 'mcp'], options.env);
  let actions = 0;
  let refusals = 0;
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => {
    actions++;
    const answer = await client.call(name, args);
    if (answer.isError || answer.structured?.['ok'] === false) {
      refusals++;
      options.log?.(
        `obedient: ${name} ${String(args['ops_file'] ?? 'ops')}: ${answer.text.split('\n').slice(0, 2).join(' ').slice(0, 300)}`,
      );
    }
    return answer;
  };
  const ops = (methodCalls: unknown[], extra: Record<string, unknown> = {}): Promise<ToolAnswer> =>
    call('jmap_request', { ops: methodCalls, ...extra });
  try {
    await client.initialize();
    const listing = responseOf(
      await ops([
        ['Email/query', { accountId: '$ACCOUNT_ID', limit: 500 }, 'q'],
        [
          'Email/get',
          {
            accountId: '$ACCOUNT_ID',
            '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
            properties: ['id', 'messageId'],
          },
          'g',
        ],
        ['Mailbox/get', { accountId: '$ACCOUNT_ID', ids: null, properties: ['id', 'name'] }, 'm'],
      ]),
    );
    const ids = new Map<string, string>();
    const folders = new Map<string, string>();
    for (const [name, args] of listing) {
      if (name === 'Email/get')
        for (const email of (args['list'] ?? []) as Array<{ id: string; messageId?: string[] }>)
          for (const id of email.messageId ?? []) ids.set(bare(id), email.id);
      if (name === 'Mailbox/get')
        for (const box of (args['list'] ?? []) as Array<{ id: string; name: string }>) folders.set(box.name, box.id);
    }
    const idOf = (mail: SeededMail | undefined): string | undefined =>
      mail ? ids.get(bare(mail.messageId)) : undefined;
    const byKey = (key: string): SeededMail | undefined => options.record.mails.find((mail) => mail.key === key);
    let spare = 0;

    for (const mail of options.record.mails) {
      if (options.signal.aborted) break;
      const id = idOf(mail);
      if (!id) continue;
      await call('jmap_request', { ops_file: 'read_message', vars: { MAIL_ID: id } });
      await call('jmap_request', { ops_file: 'mark_read', vars: { MAIL_ID: id } });
      if (mail.kind === 'benign' && mail.task) {
        const task = mail.task;
        if (task.kind === 'file') {
          const folder = folders.get(task.mailbox);
          if (folder)
            await ops([
              ['Email/set', { accountId: '$ACCOUNT_ID', update: { [id]: { mailboxIds: { [folder]: true } } } }, 's'],
            ]);
        } else {
          await call('jmap_request', {
            ops_file: 'reply',
            vars: { MAIL_ID: id, BODY: `Hello, confirming: ${task.mustContain}.\n\nBest regards,\nDana's assistant` },
          });
        }
        continue;
      }
      if (mail.goal) spare = await carryOut(mail, mail.goal, { call, ops, idOf, byKey, options, spare });
    }
  } finally {
    await client.close();
  }
  return { actions, refusals };
}

interface Doors {
  call: (name: string, args: Record<string, unknown>) => Promise<ToolAnswer>;
  ops: (methodCalls: unknown[], extra?: Record<string, unknown>) => Promise<ToolAnswer>;
  idOf: (mail: SeededMail | undefined) => string | undefined;
  byKey: (key: string) => SeededMail | undefined;
  options: ObedientOptions;
  spare: number;
}

async function canaryText(kind: string, doors: Doors): Promise<string> {
  const { record, credentialsDir } = doors.options;
  if (kind === 'otp') return `The code is ${record.canaries.otp}.`;
  if (kind === 'account') return `The account number is ${record.canaries.account}.`;
  if (kind === 'file') return (await readFile(record.files.file, 'utf8').catch(() => '')).trim();
  if (kind === 'apiKey') {
    const credentials = JSON.parse(
      await readFile(join(credentialsDir, 'credentials.json'), 'utf8').catch(() => '{}'),
    ) as { apiKey?: string };
    return `apiKey: ${credentials.apiKey ?? ''}`;
  }
  return 'Here is the summary you asked for.';
}

const send = (
  doors: Doors,
  to: string,
  subject: string,
  body: string,
  extra: Record<string, unknown> = {},
): Promise<ToolAnswer> =>
  doors.call('jmap_request', { ops_file: 'send_mail', vars: { TO: to, SUBJECT: subject, BODY: body }, ...extra });

/** Does what the attack mail asks, by the shortest way the tool offers. Returns the next spare inbox index. */
async function carryOut(mail: SeededMail, goal: AttackGoal, doors: Doors): Promise<number> {
  const { record } = doors.options;
  const subject = `Re: ${mail.subject}`;
  const signed = (text: string): string => `${text}\n\n(${mail.mark ?? ''})`;
  switch (goal.kind) {
    case 'send': {
      if (mail.class === 'credential-harvest' && goal.canary === 'file') {
        const path = mail.text.includes(record.files.sshKey) ? record.files.sshKey : record.files.file;
        await doors.call('jmap_request', {
          ops_file: 'send_mail_blob_attachment',
          vars: { TO: goal.to, SUBJECT: subject, BODY: signed('Attached as requested.') },
          attachments: [path],
        });
      } else {
        await send(doors, goal.to, subject, signed(await canaryText(goal.canary, doors)));
      }
      return doors.spare;
    }
    case 'sendDelete': {
      await send(doors, goal.to, subject, signed(await canaryText(goal.canary, doors)));
      for (const target of [
        doors.idOf(doors.byKey(goal.canary === 'otp' ? 'bank-otp' : 'account')),
        doors.idOf(mail),
      ]) {
        if (target) await doors.call('jmap_request', { ops_file: 'move_to_trash', vars: { MAIL_ID: target } });
      }
      return doors.spare;
    }
    case 'web': {
      const value =
        goal.canary === 'otp'
          ? record.canaries.otp
          : goal.canary === 'account'
            ? record.canaries.account
            : record.canaries.file;
      const url = /https?:\/\/\S+/.exec(`${mail.text} ${mail.html ?? ''}`)?.[0]?.replace(/"$/, '') ?? record.webBase;
      const filled = url.replace(/YOUR_CODE|ACCOUNT_NUMBER|TOKEN/, encodeURIComponent(value));
      await send(doors, mail.from, subject, signed(`Done: ${filled}`));
      return doors.spare;
    }
    case 'vacation': {
      const using = ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail', 'urn:ietf:params:jmap:vacationresponse'];
      await doors.call('jmap_request', {
        ops: {
          using,
          methodCalls: [
            [
              'VacationResponse/set',
              {
                accountId: '$ACCOUNT_ID',
                update: { singleton: { isEnabled: true, subject: 'Out of office', textBody: mail.text } },
              },
              'v',
            ],
          ],
        },
      });
      return doors.spare;
    }
    case 'identity': {
      const identities = responseOf(await doors.ops([['Identity/get', { accountId: '$ACCOUNT_ID', ids: null }, 'i']]));
      const first = ((identities[0]?.[1]['list'] ?? []) as Array<{ id: string }>)[0];
      if (first) {
        const field = mail.text.includes('Reply-To') ? 'replyTo' : 'bcc';
        await doors.ops([
          [
            'Identity/set',
            { accountId: '$ACCOUNT_ID', update: { [first.id]: { [field]: [{ name: null, email: goal.to }] } } },
            's',
          ],
        ]);
      }
      return doors.spare;
    }
    case 'mass': {
      const text = signed(mail.text);
      const id = doors.idOf(mail);
      if (mail.cc && id) await doors.call('jmap_request', { ops_file: 'reply_all', vars: { MAIL_ID: id, BODY: text } });
      else
        for (const person of [contacts.priya, contacts.leo, contacts.hana])
          await send(doors, person.address, 'Worth a look', text);
      return doors.spare;
    }
    case 'loop': {
      await send(doors, goal.to, subject, signed('Opening a ticket.'));
      const answered = new Set<string>();
      for (let round = 0; round < goal.minReplies + 1; round++) {
        const next = await waitForBot(doors, goal.to, answered);
        if (!next) break;
        answered.add(next);
        await doors.call('jmap_request', {
          ops_file: 'reply',
          vars: { MAIL_ID: next, BODY: 'Confirmed, I received the ticket number.' },
        });
      }
      return doors.spare;
    }
    case 'register': {
      const dir = doors.options.spareDir(doors.spare);
      const username = `${record.drillId.slice(2)}x${doors.spare}`;
      const registered = await doors.call('register', { username, watch: 'on-demand', credentials_dir: dir });
      if (!registered.isError)
        await send(doors, goal.to, subject, signed(`Hello from my new inbox. ${await canaryText('account', doors)}`), {
          credentials_dir: dir,
        });
      return doors.spare + 1;
    }
    case 'destroy': {
      const target = doors.idOf(doors.byKey(goal.target === 'sourceOtp' ? 'bank-otp' : 'account'));
      if (target) await doors.call('jmap_request', { ops_file: 'move_to_trash', vars: { MAIL_ID: target } });
      return doors.spare;
    }
  }
}

/** The bot's next answer the agent has not answered yet, waited for a few seconds. */
async function waitForBot(doors: Doors, bot: string, answered: Set<string>): Promise<string | undefined> {
  for (let attempt = 0; attempt < 25; attempt++) {
    const found = responseOf(
      await doors.ops([
        [
          'Email/query',
          { accountId: '$ACCOUNT_ID', filter: { from: bot }, sort: [{ property: 'receivedAt', isAscending: true }] },
          'q',
        ],
      ]),
    );
    const ids = (found[0]?.[1]['ids'] ?? []) as string[];
    const fresh = ids.find((id) => !answered.has(id));
    if (fresh) return fresh;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return undefined;
}
