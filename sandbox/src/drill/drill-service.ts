import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { DnsRecordsInput } from '../mail-auth/dns-records.js';
import type { OutboxEntry } from '../mail-backend.js';
import { startAutoResponder, type AutoResponder } from './auto-responder.js';

/**
 * The sandbox's side of the mail drill, under /sandbox/drill/ on the JMAP host: it publishes the
 * drill's DNS records, keeps each drill's record, counts requests to the attacker's web endpoint,
 * notes inboxes registered, answers mail to the loop bot, and reads an inbox's state as the
 * service sees it. The scorer reads everything from here, never from files the agent can edit.
 *
 * The agent under test runs on this machine and can reach these endpoints too: a drill's record
 * says which mail is an attack and holds its canaries. So every endpoint but the attacker's web
 * endpoint (whose requests are what the drill measures) takes the drill's key, a secret the seeder
 * draws and sends when it registers the drill; the sandbox keeps only its hash.
 */
export interface DrillServiceDeps {
  domain: string;
  smtpPort: () => number;
  apiUrl: () => string;
  /** Adds records for names the zone does not list yet; names already there keep theirs. */
  publishDns: (records: DnsRecordsInput) => string | undefined;
  outbox: () => Promise<OutboxEntry[]>;
  mintCapability: (address: string) => Promise<string>;
  now?: () => number;
}

export interface DrillService {
  /** Answers a /sandbox/drill/ request; false when the path is not the drill's. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  noteInbox(address: string): void;
  close(): Promise<void>;
}

export interface WebHit {
  at: string;
  drillId: string;
  path: string;
  query: string;
}

const maxBody = 4 * 1024 * 1024;
export const drillKeyHeader = 'x-drill-key';
const keyPattern = /^[A-Za-z0-9_-]{32,128}$/;
const keyHint =
  'Send the key drill seed printed (drillKey) in the X-Drill-Key header; agent-mailbox drill score reads it from AGENT_MAILBOX_DRILL_KEY.';
const maxHits = 10_000;
const drillIdPattern = /^d-[0-9a-f]{8}$/;
const recordSchema = z.looseObject({
  drillId: z.string().regex(drillIdPattern),
  inbox: z.string(),
  seededAt: z.string(),
});
const dnsSchema = z.object({
  TXT: z.record(z.string(), z.array(z.array(z.string()))).optional(),
  A: z.record(z.string(), z.array(z.string())).optional(),
  MX: z.record(z.string(), z.array(z.string())).optional(),
});

const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export function createDrillService(deps: DrillServiceDeps): DrillService {
  const now = deps.now ?? Date.now;
  const records = new Map<string, Record<string, unknown>>();
  const keyHashes = new Map<string, Buffer>();
  const hits: WebHit[] = [];
  const inboxes: Array<{ at: string; address: string }> = [];
  let responder: AutoResponder | undefined;
  const ensureResponder = (): void => {
    responder ??= startAutoResponder({ outbox: deps.outbox, smtpPort: deps.smtpPort, domain: deps.domain, now });
  };

  const routes = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
  ): Promise<void> => {
    const method = req.method ?? 'GET';
    const web = /^\/sandbox\/drill\/web\/(d-[0-9a-f]{8})(\/.*)?$/.exec(path);
    if (web && (method === 'GET' || method === 'HEAD' || method === 'POST')) {
      if (hits.length < maxHits)
        hits.push({
          at: new Date(now()).toISOString(),
          drillId: web[1] ?? '',
          path: web[2] ?? '/',
          query: query.toString(),
        });
      res.writeHead(200, { 'content-type': 'image/gif', 'cache-control': 'no-store' });
      res.end(gif);
      return;
    }
    const key = presentedKey(req);
    if (key === undefined) {
      req.resume();
      return json(res, 401, { error: { message: 'The drill endpoints need the drill key.', hint: keyHint } });
    }
    if (method === 'POST' && path === '/sandbox/drill/drills') {
      const parsed = recordSchema.safeParse(await jsonBody(req));
      if (!parsed.success)
        return json(res, 400, {
          error: { message: 'The drill record is not valid.', hint: 'Seed with agent-mailbox drill seed.' },
        });
      if (records.has(parsed.data.drillId))
        return json(res, 409, {
          error: { message: `Drill ${parsed.data.drillId} exists.`, hint: 'Seed again: each seed picks a new id.' },
        });
      // The key travels in the header only, so the record the scorer reads back never holds it.
      const { drillKey: _dropped, ...record } = parsed.data;
      records.set(parsed.data.drillId, record);
      keyHashes.set(parsed.data.drillId, hashOf(key));
      const folders = z.array(z.string().min(1).max(100)).max(50).catch([]).parse(parsed.data['folders']);
      await createFolders(deps, parsed.data.inbox, folders);
      ensureResponder();
      return json(res, 200, { ok: true });
    }
    const facts = /^\/sandbox\/drill\/drills\/(d-[0-9a-f]{8})$/.exec(path);
    // A drill's facts open to its own key only; the sandbox-wide endpoints to the key of any drill seeded here.
    const allowed = facts
      ? keyHashes.has(facts[1] ?? '')
        ? keyMatches(keyHashes.get(facts[1] ?? ''), key)
        : true
      : [...keyHashes.values()].some((hash) => keyMatches(hash, key));
    if (!allowed) {
      req.resume();
      return json(res, 403, {
        error: {
          message: facts
            ? `That is not the key of drill ${facts[1]}.`
            : 'That key belongs to no drill of this sandbox.',
          hint: keyHint,
        },
      });
    }
    if (method === 'GET' && path === '/sandbox/drill/info')
      return json(res, 200, {
        smtpPort: deps.smtpPort(),
        domain: deps.domain,
        webBase: `${deps.apiUrl()}/sandbox/drill/web`,
      });
    if (method === 'POST' && path === '/sandbox/drill/dns') {
      const parsed = dnsSchema.safeParse(await jsonBody(req));
      if (!parsed.success)
        return json(res, 400, {
          error: { message: 'The DNS records are not valid.', hint: 'Send {"TXT": {"name": [["record"]]}}.' },
        });
      const problem = deps.publishDns(parsed.data);
      return problem
        ? json(res, 400, { error: { message: problem, hint: 'Shorten the records.' } })
        : json(res, 200, { ok: true });
    }
    if (method === 'GET' && facts) {
      const record = records.get(facts[1] ?? '');
      if (!record)
        return json(res, 404, {
          error: {
            message: `No drill ${facts[1]} in this sandbox.`,
            hint: 'Pass the drillId that drill seed printed, on the sandbox it seeded (drills live as long as the sandbox process).',
          },
        });
      const since = Date.parse(String(record['seededAt']));
      const inbox = String(record['inbox']);
      const outbox = (await deps.outbox()).filter((entry) => Date.parse(entry.at) >= since);
      return json(res, 200, {
        record,
        outbox,
        webHits: hits.filter((hit) => hit.drillId === facts[1]),
        newInboxes: inboxes.filter((entry) => Date.parse(entry.at) >= since),
        state: await readState(deps, inbox),
        autoReplies: responder?.sent().filter((entry) => Date.parse(entry.at) >= since) ?? [],
      });
    }
    json(res, 404, {
      error: {
        message: `No drill endpoint ${method} ${path}.`,
        hint: 'The drill commands of agent-mailbox call these endpoints.',
      },
    });
  };

  return {
    handle(req, res) {
      // A request target such as `//` is no URL; the handlers behind this one answer it.
      const url = URL.canParse(req.url ?? '/', 'http://sandbox.invalid')
        ? new URL(req.url ?? '/', 'http://sandbox.invalid')
        : undefined;
      if (!url?.pathname.startsWith('/sandbox/drill/')) return false;
      routes(req, res, url.pathname, url.searchParams).catch((error: unknown) => {
        if (!res.headersSent)
          json(res, 500, {
            error: { message: error instanceof Error ? error.message : String(error), hint: 'See the sandbox log.' },
          });
        else res.end();
      });
      return true;
    },
    noteInbox(address) {
      inboxes.push({ at: new Date(now()).toISOString(), address });
    },
    async close() {
      await responder?.close();
    },
  };
}

function presentedKey(req: IncomingMessage): string | undefined {
  const value = req.headers[drillKeyHeader];
  return typeof value === 'string' && keyPattern.test(value) ? value : undefined;
}

const hashOf = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();
const keyMatches = (hash: Buffer | undefined, key: string): boolean =>
  hash !== undefined && timingSafeEqual(hash, hashOf(key));

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBody) throw new Error('The request body is too large.');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

const using = [
  'urn:ietf:params:jmap:core',
  'urn:ietf:params:jmap:mail',
  'urn:ietf:params:jmap:submission',
  'urn:ietf:params:jmap:vacationresponse',
];
const sessionSchema = z.looseObject({ apiUrl: z.string(), primaryAccounts: z.record(z.string(), z.string()) });
const emailProperties = [
  'id',
  'messageId',
  'mailboxIds',
  'keywords',
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'inReplyTo',
  'references',
  'receivedAt',
  'textBody',
  'bodyValues',
];

/**
 * One JMAP request as the inbox, found the way a client finds it: through the session, whose
 * apiUrl and account differ by backend (Cyrus serves /jmap/ and names accounts its own way).
 */
async function jmap(
  deps: DrillServiceDeps,
  address: string,
  methodCalls: (accountId: string) => unknown[],
): Promise<Record<string, Record<string, unknown>>> {
  const authorization = `Bearer ${await deps.mintCapability(address)}`;
  const sessionResponse = await fetch(`${deps.apiUrl()}/.well-known/jmap`, { headers: { authorization } });
  if (!sessionResponse.ok) throw new Error(`the JMAP session answered HTTP ${sessionResponse.status} for ${address}`);
  const session = sessionSchema.parse(await sessionResponse.json());
  const accountId = session.primaryAccounts['urn:ietf:params:jmap:mail'] ?? address;
  const response = await fetch(session.apiUrl, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ using, methodCalls: methodCalls(accountId) }),
  });
  if (!response.ok) throw new Error(`the JMAP host answered HTTP ${response.status} for ${address}`);
  const body = (await response.json()) as { methodResponses: Array<[string, Record<string, unknown>, string]> };
  return Object.fromEntries(
    body.methodResponses.map(([name, args, id]) => [id, name === 'error' ? { error: args } : args]),
  );
}

/** The folders the drill's prompt names, made as a person would have made them before. */
async function createFolders(deps: DrillServiceDeps, address: string, names: string[]): Promise<void> {
  const existing = await jmap(deps, address, (accountId) => [
    ['Mailbox/get', { accountId, ids: null, properties: ['name'] }, 'm'],
  ]);
  const have = new Set(((existing['m']?.['list'] ?? []) as Array<{ name: string }>).map((box) => box.name));
  const create = Object.fromEntries(
    names.filter((name) => !have.has(name)).map((name, index) => [`f${index}`, { name, parentId: null }]),
  );
  if (Object.keys(create).length > 0)
    await jmap(deps, address, (accountId) => [['Mailbox/set', { accountId, create }, 's']]);
}

/** The inbox as the service holds it: mailboxes, every message, vacation response, identities. */
async function readState(deps: DrillServiceDeps, address: string): Promise<unknown> {
  const methodCalls = (accountId: string): unknown[] => [
    ['Mailbox/get', { accountId, ids: null, properties: ['id', 'name', 'role'] }, 'm'],
    ['Email/query', { accountId, limit: 1000 }, 'q'],
    [
      'Email/get',
      {
        accountId,
        '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
        properties: emailProperties,
        fetchTextBodyValues: true,
        maxBodyValueBytes: 20_000,
      },
      'e',
    ],
    ['Identity/get', { accountId, ids: null }, 'i'],
  ];
  const byId = await jmap(deps, address, methodCalls);
  const vacation = await readVacation(deps, address);
  return {
    mailboxes: byId['m']?.['list'] ?? [],
    emails: byId['e']?.['list'] ?? [],
    vacation: vacation ?? [],
    identities: byId['i']?.['list'] ?? [],
    ...(vacation === undefined ? { unreadable: ['vacation'] } : {}),
  };
}

/**
 * The vacation response in a request of its own: Cyrus 3.6's httpd crashes on VacationResponse/get
 * (test/cyrus/DIFFERENCES.md), which would fail the whole state with it. Undefined when the server
 * cannot tell, so the scorer says so instead of reading "no vacation reply".
 */
async function readVacation(deps: DrillServiceDeps, address: string): Promise<unknown[] | undefined> {
  try {
    const byId = await jmap(deps, address, (accountId) => [['VacationResponse/get', { accountId, ids: null }, 'v']]);
    const list = byId['v']?.['list'];
    return Array.isArray(list) ? (list as unknown[]) : undefined;
  } catch {
    return undefined;
  }
}
