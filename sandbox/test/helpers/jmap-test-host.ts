import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmbeddedBackend, type EmbeddedOptions } from '../../src/embedded/create-embedded-backend.js';
import { createMailAuthority } from '../../src/mail-auth/mail-authority.js';
import type { MailBackend } from '../../src/mail-backend.js';
import { jmapCapabilities } from '../../src/wire-constants.js';

/** The sandbox test domain. */
export const testDomain = 'agent-mailbox.test';

/** An embedded backend served on 127.0.0.1, port 0, with bearer "token-<user>" standing for <user>@agent-mailbox.test. */
export interface JmapTestHost {
  backend: MailBackend;
  baseUrl: string;
  logs: string[];
  /** Creates inboxes for the users and returns their addresses. */
  addInboxes(...users: string[]): Promise<string[]>;
  /** POSTs a JMAP request as a user; returns status and parsed body. */
  request(user: string, methodCalls: unknown[], using?: string[]): Promise<{ status: number; body: JmapResponse }>;
  /** Shorthand: the methodResponses of a successful request. */
  call(user: string, methodCalls: unknown[], using?: string[]): Promise<[string, Record<string, unknown>, string][]>;
  close(): Promise<void>;
}

/** A decoded JMAP response body. */
export interface JmapResponse {
  methodResponses: [string, Record<string, unknown>, string][];
  sessionState: string;
  [key: string]: unknown;
}

/** Every capability the host knows. */
export const allUsing: string[] = Object.values(jmapCapabilities);

/** Starts a host; `dataDir` makes it persistent, `now` sets the store's clock, `parseCache` how messages are parsed. */
export async function startJmapTestHost(options: { dataDir?: string } & EmbeddedOptions = {}): Promise<JmapTestHost> {
  const logs: string[] = [];
  let baseUrl = '';
  const backend = await createEmbeddedBackend(
    {
      domain: testDomain,
      async verifyCapability(bearer) {
        const match = /^token-([a-z0-9._-]+)$/.exec(bearer);
        if (!match?.[1]) throw new Error('bad token');
        return { address: `${match[1]}@${testDomain}`, inboxId: match[1] };
      },
      publicApiUrl: () => baseUrl,
      ownMail: await createMailAuthority({ domain: testDomain, authservId: testDomain }),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      log: (line) => logs.push(line),
    },
    {
      ...(options.now ? { now: options.now } : {}),
      ...(options.parseCache ? { parseCache: options.parseCache } : {}),
    },
  );
  const server: Server = createServer((req, res) => backend.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const request = async (user: string, methodCalls: unknown[], using = allUsing) => {
    const response = await fetch(`${baseUrl}/jmap`, {
      method: 'POST',
      headers: { authorization: `Bearer token-${user}`, 'content-type': 'application/json' },
      body: JSON.stringify({ using, methodCalls }),
    });
    return { status: response.status, body: (await response.json()) as JmapResponse };
  };
  return {
    backend,
    baseUrl,
    logs,
    async addInboxes(...users) {
      for (const user of users) await backend.createInbox(`${user}@${testDomain}`);
      return users.map((user) => `${user}@${testDomain}`);
    },
    request,
    async call(user, methodCalls, using) {
      const { status, body } = await request(user, methodCalls, using);
      if (status !== 200) throw new Error(`JMAP answered ${status}: ${JSON.stringify(body)}`);
      return body.methodResponses;
    },
    async close() {
      await backend.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The arguments of the response with a call id, failing loudly when it is an error. */
export function resultOf(
  responses: [string, Record<string, unknown>, string][],
  callId: string,
  name?: string,
): Record<string, any> {
  const found = responses.find((response) => response[2] === callId && (name === undefined || response[0] === name));
  if (!found) throw new Error(`No response ${callId}: ${JSON.stringify(responses)}`);
  if (found[0] === 'error' && name !== 'error') throw new Error(`Call ${callId} failed: ${JSON.stringify(found[1])}`);
  return found[1];
}

/** Mailbox ids by role for a user. */
export async function mailboxIds(host: JmapTestHost, user: string): Promise<Record<string, string>> {
  const responses = await host.call(user, [['Mailbox/get', { accountId: `${user}@${testDomain}`, ids: null }, 'm']]);
  const list = resultOf(responses, 'm')['list'] as { id: string; role: string }[];
  return Object.fromEntries(list.map((mailbox) => [mailbox.role, mailbox.id]));
}
