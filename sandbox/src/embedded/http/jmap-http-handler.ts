import type { IncomingMessage, ServerResponse } from 'node:http';
import { jmapSessionPath } from '../../wire-constants.js';
import type { CapabilityClaims, OutboxEntry } from '../../mail-backend.js';
import { serveEventSource } from './event-source-endpoint.js';
import { bearerOf, readBody, sendJson, sendProblem, sendServiceError } from './http-io.js';
import type { InboxAccount } from '../store/inbox-account.js';
import { jmapLimits } from '../protocol/jmap-limits.js';
import { buildSession } from './jmap-session.js';
import { RequestProblem } from '../protocol/method-error.js';
import type { MailNetwork } from '../store/mail-network.js';
import type { PushHub } from './push-hub.js';
import { processJmapRequest } from '../protocol/process-jmap-request.js';

/** What the HTTP layer needs from the backend. */
export interface JmapHttpDeps {
  network: MailNetwork;
  verifyCapability(bearer: string): Promise<CapabilityClaims>;
  publicApiUrl(): string;
  log(line: string): void;
  outbox(): OutboxEntry[];
  /** Where open EventSource streams wait for state changes. */
  push: PushHub;
  /** Runs store work one job at a time, then persists what changed. */
  serialize<T>(job: () => Promise<T>): Promise<T>;
}

/** Builds the JMAP host's request handler: session, /jmap, upload, download, /sandbox/outbox. */
export function createJmapHttpHandler(deps: JmapHttpDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    route(req, res, deps).catch((error: unknown) => {
      deps.log(
        `embedded jmap: ${req.method} ${req.url} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      if (!res.headersSent)
        sendServiceError(
          res,
          500,
          'The sandbox JMAP host failed internally.',
          'Retry; if it persists, rerun the sandbox with logs on stderr and report them.',
        );
      else res.end();
    });
  };
}

async function route(req: IncomingMessage, res: ServerResponse, deps: JmapHttpDeps): Promise<void> {
  const url = URL.canParse(req.url ?? '/', 'http://sandbox.invalid')
    ? new URL(req.url ?? '/', 'http://sandbox.invalid')
    : undefined;
  if (!url) {
    req.resume();
    sendServiceError(
      res,
      400,
      'The request target is not a valid URL path.',
      `Use the URLs of the session at ${jmapSessionPath}.`,
    );
    return;
  }
  const path = url.pathname;
  if (req.method === 'GET' && path === '/sandbox/outbox') {
    sendJson(res, 200, deps.outbox());
    return;
  }
  const isKnown =
    path === jmapSessionPath || /^\/jmap\/?$/.test(path) || /^\/(upload|download|eventsource)(\/|$)/.test(path);
  if (!isKnown) {
    sendServiceError(
      res,
      404,
      `Nothing at ${path} on the JMAP host.`,
      `Fetch ${jmapSessionPath} for the session and use its apiUrl, uploadUrl and downloadUrl.`,
    );
    return;
  }
  const account = await authenticate(req, res, deps);
  if (!account) return;
  if (req.method === 'GET' && path === jmapSessionPath) {
    sendJson(res, 200, buildSession(account.address, deps.publicApiUrl()));
  } else if (req.method === 'POST' && /^\/jmap\/?$/.test(path)) {
    await handleApi(req, res, account, deps);
  } else if (req.method === 'POST' && path.startsWith('/upload/')) {
    await handleUpload(req, res, account, path, deps);
  } else if (req.method === 'GET' && path.startsWith('/download/')) {
    await handleDownload(res, account, path, url, deps);
  } else if (req.method === 'GET' && /^\/eventsource\/?$/.test(path)) {
    serveEventSource(req, res, url, account, deps.push);
  } else {
    sendServiceError(
      res,
      405,
      `${req.method} is not allowed on ${path}.`,
      'Use GET for the session and downloads, POST for /jmap and uploads.',
    );
  }
}

async function authenticate(
  req: IncomingMessage,
  res: ServerResponse,
  deps: JmapHttpDeps,
): Promise<InboxAccount | undefined> {
  const bearer = bearerOf(req);
  const challenge = { 'www-authenticate': 'Bearer realm="jmap"' };
  if (!bearer) {
    sendServiceError(
      res,
      401,
      'The request has no bearer capability token.',
      'Mint a capability JWT with POST /api/v1/capability on the auth host and send it as "Authorization: Bearer <jwt>".',
      challenge,
    );
    return undefined;
  }
  let claims: CapabilityClaims;
  try {
    claims = await deps.verifyCapability(bearer);
  } catch {
    sendServiceError(
      res,
      401,
      'The capability token is invalid or expired.',
      'Mint a fresh capability JWT with POST /api/v1/capability (it lives about 2 minutes) and retry.',
      challenge,
    );
    return undefined;
  }
  const account = deps.network.account(claims.address);
  if (!account) {
    sendServiceError(
      res,
      401,
      `No mail store exists for ${claims.address}.`,
      'Sign up again on this sandbox; its inboxes are gone after a restart without --data-dir.',
      challenge,
    );
    return undefined;
  }
  return account;
}

async function handleApi(
  req: IncomingMessage,
  res: ServerResponse,
  account: InboxAccount,
  deps: JmapHttpDeps,
): Promise<void> {
  try {
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (contentType !== 'application/json') {
      req.resume();
      throw new RequestProblem('notJSON', 'Content-Type must be application/json (RFC 8620 §3.1).');
    }
    const body = await readBody(req, jmapLimits.maxSizeRequest);
    if (!body)
      throw new RequestProblem(
        'limit',
        `The request exceeds maxSizeRequest (${jmapLimits.maxSizeRequest} octets).`,
        400,
        'maxSizeRequest',
      );
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw new RequestProblem('notJSON', 'The request body is not valid JSON.');
    }
    const sessionState = String(buildSession(account.address, deps.publicApiUrl())['state']);
    const response = await deps.serialize(() =>
      processJmapRequest(parsed, account, deps.network, sessionState, deps.log),
    );
    sendJson(res, 200, response);
  } catch (error) {
    if (!(error instanceof RequestProblem)) throw error;
    sendProblem(res, error.toBody());
  }
}

async function handleUpload(
  req: IncomingMessage,
  res: ServerResponse,
  account: InboxAccount,
  path: string,
  deps: JmapHttpDeps,
): Promise<void> {
  const accountId = decodePathPart(path.split('/')[2] ?? '');
  if (accountId !== account.address) {
    req.resume();
    sendServiceError(
      res,
      403,
      `Uploads for ${accountId ?? 'a malformed account id'} are not allowed with this token.`,
      `Upload to the uploadUrl with accountId ${account.address}.`,
    );
    return;
  }
  const body = await readBody(req, jmapLimits.maxSizeUpload);
  if (!body) {
    sendProblem(
      res,
      new RequestProblem(
        'limit',
        `The upload exceeds maxSizeUpload (${jmapLimits.maxSizeUpload} octets).`,
        413,
        'maxSizeUpload',
      ).toBody(),
    );
    return;
  }
  const type = mediaTypeOf(req.headers['content-type']) ?? 'application/octet-stream';
  const upload = await deps.serialize(async () => account.blobs.add(body, type));
  sendJson(res, 201, { accountId: account.address, blobId: upload.id, type: upload.type, size: upload.size });
}

async function handleDownload(
  res: ServerResponse,
  account: InboxAccount,
  path: string,
  url: URL,
  deps: JmapHttpDeps,
): Promise<void> {
  const [, , rawAccountId, rawBlobId, ...nameParts] = path.split('/');
  const accountId = decodePathPart(rawAccountId ?? '');
  const blobId = decodePathPart(rawBlobId ?? '');
  const name = decodePathPart(nameParts.join('/')) || blobId;
  const requestedType = url.searchParams.get('type');
  const type = requestedType ? mediaTypeOf(requestedType) : undefined;
  if (accountId === undefined || blobId === undefined || name === undefined || (requestedType && !type)) {
    sendServiceError(
      res,
      400,
      'The download URL has a malformed percent-encoding or type parameter.',
      "Fill the session's downloadUrl template with encodeURIComponent for each part and a media type such as text/plain for {type}.",
    );
    return;
  }
  const blob = accountId === account.address ? await deps.serialize(() => account.blobs.resolve(blobId)) : undefined;
  if (!blob) {
    sendServiceError(
      res,
      404,
      `Blob ${blobId} was not found in ${accountId}.`,
      'Take blobId values from Email/get (blobId, attachments) or from an upload of this account.',
    );
    return;
  }
  const asciiName = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  res.writeHead(200, {
    'content-type': type ?? blob.type,
    'content-length': String(blob.data.length),
    'content-disposition': `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    'cache-control': 'private, immutable, max-age=31536000',
  });
  res.end(blob.data);
}

/** A percent-decoded path segment, or undefined when its encoding is malformed. */
function decodePathPart(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** A media type with parameters (RFC 9110 §8.3.1) safe to echo in a header; undefined for anything else. */
function mediaTypeOf(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  if (!trimmed || trimmed.length > 255) return undefined;
  return /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("[\x20-\x7e]*"|[\w!#$&^.+-]+))*$/.test(trimmed)
    ? trimmed
    : undefined;
}
