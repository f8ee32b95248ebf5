import type { IncomingMessage, ServerResponse } from 'node:http';
import { sandboxDocsUrl } from '../sandbox-docs-url.js';

/** A refusal of the auth host, rendered as `{"error": {message, hint, docs_url}}` (spec §7.2). */
export class AuthFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly hint: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AuthFailure';
  }
}

/** Writes a JSON body with the given status and extra headers. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** Renders an AuthFailure in the live service's error shape. */
export function sendFailure(res: ServerResponse, failure: AuthFailure): void {
  const body = { error: { message: failure.message, hint: failure.hint, docs_url: sandboxDocsUrl } };
  sendJson(res, failure.status, body, failure.headers);
}

// Session bodies are three short strings; anything near this size is not a client of ours.
const maxBodyBytes = 16 * 1024;

/** Reads the request body as text, refusing oversized bodies with 413. */
export async function readBodyText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > maxBodyBytes) {
      throw new AuthFailure(
        413,
        `The request body is larger than ${maxBodyBytes} bytes.`,
        'Send only {powHex, nonce, username} or {powHex, nonce, apiKey}.',
      );
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads and parses a JSON body; malformed JSON is a 400 whose hint shows the expected shape. */
export async function readJsonBody(req: IncomingMessage, expected: string): Promise<unknown> {
  const text = await readBodyText(req);
  if (text.trim() === '') {
    throw new AuthFailure(
      400,
      'The request body is empty; a JSON object was expected.',
      `Send a JSON body of the form ${expected} with content-type application/json.`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AuthFailure(
      400,
      'The request body is not valid JSON.',
      `Send a JSON body of the form ${expected} with content-type application/json.`,
    );
  }
}
