import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MailboxError } from '../../errors.js';

/** The authorization response that came back, and how to answer the browser that brought it. */
interface ReceivedAnswer {
  params: URLSearchParams;
  /** Shows the outcome in the person's browser (the page waits for it, up to a few seconds). */
  finish(outcome: { ok: boolean; message: string }): void;
}

interface LoopbackReceiver {
  /** The exact redirect URI to register (RFC 8252 §7.3). */
  redirectUri: string;
  /** The first answer carrying `state`; others are turned away and waiting goes on. */
  next(state: string, waitMs: number, signal: AbortSignal): Promise<ReceivedAnswer>;
  close(): Promise<void>;
}

const callbackPath = '/callback';
// The page is held open while the code is exchanged; past this the browser gets a neutral answer.
const finishWaitMs = 15_000;

function page(res: ServerResponse, status: number, title: string, message: string): void {
  const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    // The URL carried the code: nothing here may be cached, framed, or leak it onwards as a Referer.
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
  });
  res.end(
    `<!doctype html><meta charset="utf-8"><title>${escape(title)}</title><h1>${escape(title)}</h1><p>${escape(message)}</p>`,
  );
}

/** A one-shot listener on 127.0.0.1 (RFC 8252 §7.3) for GET /callback; another state is refused, the wait goes on. */
export async function listenOnLoopback(): Promise<LoopbackReceiver> {
  let deliver: ((answer: ReceivedAnswer) => void) | undefined;
  let expected: string | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== callbackPath)
      return page(res, 404, 'Not found', 'Nothing is served here.');
    if (expected === undefined || url.searchParams.get('state') !== expected || !deliver)
      return page(
        res,
        400,
        'Not for this sign-in',
        'This answer does not belong to the connection agent-mailbox is waiting for. Start again from the link agent-mailbox printed.',
      );
    const receive = deliver;
    deliver = undefined;
    let answered = false;
    const finish = (outcome: { ok: boolean; message: string }): void => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      page(res, outcome.ok ? 200 : 400, outcome.ok ? 'Connected' : 'Not connected', outcome.message);
    };
    const timer = setTimeout(
      () =>
        finish({
          ok: true,
          message: 'agent-mailbox received the answer; see its terminal for the outcome. You can close this window.',
        }),
      finishWaitMs,
    );
    receive({ params: url.searchParams, finish });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${callbackPath}`,
    next(state, waitMs, signal) {
      expected = state;
      return new Promise<ReceivedAnswer>((resolve, reject) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          deliver = undefined;
        };
        const fail = (error: MailboxError): void => {
          done();
          reject(error);
        };
        const onAbort = (): void =>
          fail(
            new MailboxError({
              code: 'cancelled',
              message: 'Cancelled while waiting for the person to sign in and approve.',
              hint: 'Run connect again when they are ready.',
            }),
          );
        const timer = setTimeout(
          () =>
            fail(
              new MailboxError({
                code: 'timeout',
                message: `Nobody finished the sign-in and consent within ${Math.round(waitMs / 1000)} s.`,
                hint: 'Run connect again, open the link it prints in a browser on this machine, sign in and approve (--wait-seconds gives more time).',
              }),
            ),
          waitMs,
        );
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        deliver = (answer) => {
          done();
          resolve(answer);
        };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
