import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendServiceError } from './http-io.js';
import type { InboxAccount } from '../store/inbox-account.js';
import { sandboxLimits } from '../protocol/jmap-limits.js';
import type { PushHub, TypeStates } from './push-hub.js';
import { trackedTypes, type TrackedType } from '../store/records.js';

/** Longest ping interval honoured; a larger request gets this one, as RFC 8620 §7.3 allows. */
const maxPingSeconds = 300;

interface StreamParams {
  types: ReadonlySet<TrackedType>;
  closeAfterState: boolean;
  pingSeconds: number;
}

/** Parses `types`, `closeafter` and `ping`; a string saying what is wrong when they are not usable. */
function parseParams(url: URL): StreamParams | string {
  const rawTypes = url.searchParams.get('types') ?? '';
  const names = rawTypes === '*' ? [...trackedTypes] : rawTypes.split(',').filter(Boolean);
  const unknown = names.filter((name) => !(trackedTypes as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length)
    return `types must be * or a comma-separated list of ${trackedTypes.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ').slice(0, 100)}` : ''}.`;
  const closeafter = url.searchParams.get('closeafter');
  if (closeafter !== 'state' && closeafter !== 'no') return 'closeafter must be "state" or "no".';
  const ping = url.searchParams.get('ping') ?? '0';
  if (!/^\d{1,9}$/.test(ping)) return 'ping must be a whole number of seconds (0 for no pings).';
  return {
    types: new Set(names as TrackedType[]),
    closeAfterState: closeafter === 'state',
    pingSeconds: Math.min(Number(ping), maxPingSeconds),
  };
}

/**
 * GET eventSourceUrl (RFC 8620 §7.3): a text/event-stream of `state` events carrying StateChange
 * objects, and `ping` events when asked. The stream outlives the capability token that opened it,
 * as a long-lived EventSource must; it ends when the client goes or the sandbox stops.
 */
export function serveEventSource(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  account: InboxAccount,
  hub: PushHub,
): void {
  const params = parseParams(url);
  if (typeof params === 'string') {
    sendServiceError(
      res,
      400,
      `Bad EventSource parameters: ${params}`,
      "Fill the session's eventSourceUrl template, e.g. types=*&closeafter=no&ping=30.",
    );
    return;
  }
  if (hub.count(account.address) >= sandboxLimits.maxEventStreams) {
    sendServiceError(
      res,
      429,
      `${account.address} already has ${sandboxLimits.maxEventStreams} open event streams (maxEventStreams).`,
      'Close an open EventSource connection of this inbox before opening another.',
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  // A comment line gets the head and a first byte through to clients that wait for the body.
  res.write(': agent-mailbox sandbox event stream\n\n');
  res.socket?.setNoDelay(true);

  let ping: NodeJS.Timeout | undefined;
  const unsubscribe = hub.subscribe(account, params.types, (changed: TypeStates) => {
    res.write(
      `event: state\ndata: ${JSON.stringify({ '@type': 'StateChange', changed: { [account.address]: changed } })}\n\n`,
    );
    if (params.closeAfterState) stop();
  });
  const stop = (): void => {
    unsubscribe();
    if (ping) clearInterval(ping);
    if (!res.writableEnded) res.end();
  };
  if (params.pingSeconds > 0) {
    ping = setInterval(
      () => res.write(`event: ping\ndata: ${JSON.stringify({ interval: params.pingSeconds })}\n\n`),
      params.pingSeconds * 1000,
    );
  }
  req.on('close', stop);
  res.on('close', stop);
}
