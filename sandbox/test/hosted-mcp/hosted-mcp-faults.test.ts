import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { BackendContext, MailBackend } from '../../src/mail-backend.js';
import { pollUntil, signUpInbox, startTestSandbox } from '../helpers/sandbox.js';
import { callFailing, connectWithApiKey } from './hosted-mcp-kit.js';

// A mail store that misbehaves once a tool's JMAP request arrives: the tool call must end with a
// clear error, in bounded time and memory, and say nothing of the capability it carried.
type Fault = 'hang' | 'flood' | 'reset' | 'echo';

interface FaultyStore {
  factory: (ctx: BackendContext) => Promise<MailBackend>;
  setFault(fault: Fault): void;
  /** Requests to /jmap received, and those still open when their client went away. */
  received: number;
  abandoned: number;
}

function faultyStore(): FaultyStore {
  let fault: Fault = 'hang';
  const store: FaultyStore = {
    received: 0,
    abandoned: 0,
    setFault: (next) => void (fault = next),
    factory: async (ctx) => ({
      kind: 'embedded',
      handle(req: IncomingMessage, res: ServerResponse) {
        void ctx.verifyCapability(req.headers.authorization ?? '').then(
          (claims) => {
            if (req.method === 'GET') {
              res.writeHead(200, { 'content-type': 'application/json' });
              return void res.end(
                JSON.stringify({
                  apiUrl: `${ctx.publicApiUrl()}/jmap`,
                  uploadUrl: `${ctx.publicApiUrl()}/upload/{accountId}/`,
                  primaryAccounts: { 'urn:ietf:params:jmap:mail': claims.address },
                }),
              );
            }
            req.resume();
            store.received += 1;
            res.once('close', () => {
              if (!res.writableFinished) store.abandoned += 1;
            });
            if (fault === 'hang') return;
            if (fault === 'reset') return void req.socket.destroy();
            if (fault === 'echo') {
              res.writeHead(500, { 'content-type': 'text/plain' });
              return void res.end(`internal error while serving ${req.headers.authorization ?? ''}`);
            }
            res.writeHead(200, { 'content-type': 'application/json' });
            const flood = (): void => {
              while (res.write(`[${'"x",'.repeat(16 * 1024)}`)) if (res.destroyed) return;
              res.once('drain', flood);
            };
            flood();
          },
          () => res.writeHead(401).end(),
        );
      },
      createInbox: async () => {},
      deliverInbound: async (_raw, envelope) => ({ accepted: [], rejected: envelope.to }),
      outbox: async () => [],
      close: async () => {},
    }),
  };
  return store;
}

const store = faultyStore();
const sandbox = await startTestSandbox({
  createBackend: store.factory,
  hostedMcp: { jmapTimeoutMs: 3_000, maxJmapResponseBytes: 1024 * 1024 },
});
const inbox = await signUpInbox(sandbox, 'faulty-store');
const { client } = await connectWithApiKey(sandbox.mcpUrl, { 'x-api-key': inbox.apiKey });

describe('a misbehaving mail store', () => {
  it('that never answers ends the tool call at the deadline with mail_store_timeout', async () => {
    store.setFault('hang');
    const started = Date.now();
    const { error, text } = await callFailing(client, 'read_inbox');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(error).toMatchObject({
      code: 'mail_store_timeout',
      message: 'The mail store did not answer the JMAP request within 3 s; the call was abandoned.',
    });
    expect(text).toContain('check the Sent mailbox');
    await pollUntil(() => (store.abandoned > 0 ? true : undefined), 5_000, 'the abandoned request to close');
  });

  it('that floods stops being read at the size cap', async () => {
    store.setFault('flood');
    const { error } = await callFailing(client, 'read_inbox');
    expect(error).toMatchObject({
      code: 'mail_store_error',
      message: "The mail store's answer is larger than 1024 KiB.",
    });
  });

  it('that resets the connection is reported, not retried', async () => {
    store.setFault('reset');
    const { error } = await callFailing(client, 'send_email', {
      to: ['bob@example.org'],
      subject: 'once',
      body: 'only once',
    });
    expect(error).toMatchObject({
      code: 'mail_store_error',
      message: 'The mail store could not be reached for the JMAP request.',
    });
  });

  it('that echoes the capability in an error page does not get it into the tool result', async () => {
    store.setFault('echo');
    const { error, text } = await callFailing(client, 'read_inbox');
    expect(error).toMatchObject({
      code: 'mail_store_error',
      message: 'The mail store answered the JMAP request with HTTP 500.',
    });
    expect(`${text}${JSON.stringify(error)}`).not.toMatch(/eyJ|Bearer/);
  });

  it('is left alone when the client cancels the call: the JMAP request is abandoned long before its deadline', async () => {
    const patient = faultyStore();
    const slow = await startTestSandbox({ createBackend: patient.factory, hostedMcp: { jmapTimeoutMs: 60_000 } });
    const { client: canceller } = await connectWithApiKey(slow.mcpUrl, {
      'x-api-key': (await signUpInbox(slow, 'cancel-agent')).apiKey,
    });
    const controller = new AbortController();
    const call = canceller.callTool({ name: 'read_inbox', arguments: {} }, { signal: controller.signal });
    await pollUntil(() => (patient.received > 0 ? true : undefined), 5_000, 'the JMAP request to arrive');
    controller.abort();
    await expect(call).rejects.toThrow();
    await pollUntil(() => (patient.abandoned > 0 ? true : undefined), 5_000, 'the cancelled request to close');
  });
});
