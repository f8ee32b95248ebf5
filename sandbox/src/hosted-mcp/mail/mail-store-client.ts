import { z } from 'zod';
import { jmapSessionPath } from '../../wire-constants.js';
import { readCappedResponse } from '../../read-capped-response.js';
import { HostedToolError } from '../tools/hosted-tool-error.js';

/** A JMAP method call or response: [name, arguments, call id] (RFC 8620 §3.2). */
export type MethodCall = [string, Record<string, unknown>, string];

/** How the hosted tools reach the sandbox's own JMAP host. */
export interface MailStoreDeps {
  /** The JMAP host's base URL, e.g. http://127.0.0.1:PORT. */
  apiUrl(): string;
  /** A two-minute capability JWT for one inbox, minted service-side (spec §4.4). */
  mintCapability(address: string): Promise<string>;
  /** Deadline of each HTTP request to the JMAP host, in milliseconds. */
  timeoutMs: number;
  /** Largest answer read from the JMAP host, in bytes. */
  maxResponseBytes: number;
}

/** One inbox, opened for the length of one tool call. */
export interface InboxConnection {
  /** The JMAP account id (the session's primary mail account). */
  accountId: string;
  address: string;
  /** One POST to the JMAP API; never resent (a send may have taken effect). */
  call(methodCalls: MethodCall[], using: readonly string[]): Promise<MethodCall[]>;
  /** Uploads one blob (RFC 8620 §6.1). */
  upload(bytes: Buffer, type: string): Promise<{ blobId: string; size: number }>;
}

const sessionSchema = z.object({
  apiUrl: z.string().min(1),
  uploadUrl: z.string().min(1),
  primaryAccounts: z.record(z.string(), z.string()),
});
const apiAnswerSchema = z.object({
  methodResponses: z.array(z.tuple([z.string(), z.record(z.string(), z.unknown()), z.string()])),
});
const uploadAnswerSchema = z.object({ blobId: z.string().min(1), size: z.number() });

/**
 * Opens an inbox for a tool call: mints a capability for it and reads its JMAP session, over HTTP
 * to the sandbox's own JMAP host — the same endpoint every client uses, so the mail store sees only
 * the capability, never the caller's token or apiKey. Every request has a deadline and a size cap.
 */
export async function openInbox(deps: MailStoreDeps, address: string, signal: AbortSignal): Promise<InboxConnection> {
  const capability = await deps.mintCapability(address);
  const base = deps.apiUrl();
  const request = async (url: string, init: RequestInit, what: string): Promise<unknown> => {
    // The capability goes to the JMAP host and nowhere else, whatever URL a session names.
    if (new URL(url).origin !== new URL(base).origin)
      throw storeFailure(`The mail store named ${what} on another host.`);
    const deadline = AbortSignal.timeout(deps.timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        headers: { ...init.headers, authorization: `Bearer ${capability}` },
        signal: AbortSignal.any([signal, deadline]),
        redirect: 'error',
      });
      const text = await readCappedResponse(response, deps.maxResponseBytes);
      if (text === undefined)
        throw storeFailure(
          `The mail store's answer is larger than ${Math.round(deps.maxResponseBytes / 1024)} KiB.`,
          'Ask for less in one call: a smaller limit, fewer ids or properties.',
        );
      if (!response.ok) throw storeFailure(`The mail store answered ${what} with HTTP ${response.status}.`);
      return JSON.parse(text) as unknown;
    } catch (error) {
      if (error instanceof HostedToolError) throw error;
      if (deadline.aborted) {
        throw new HostedToolError(
          'mail_store_timeout',
          `The mail store did not answer ${what} within ${deps.timeoutMs / 1000} s; the call was abandoned.`,
          'Try again in a moment; if a send was under way, check the Sent mailbox with read_inbox or search_messages before sending again.',
        );
      }
      if (signal.aborted)
        throw new HostedToolError(
          'cancelled',
          'The tool call was cancelled.',
          'Call the tool again if you still need it.',
        );
      if (error instanceof SyntaxError) throw storeFailure(`The mail store's answer to ${what} is not JSON.`);
      throw storeFailure(`The mail store could not be reached for ${what}.`);
    }
  };

  const session = sessionSchema.safeParse(
    await request(`${base}${jmapSessionPath}`, { method: 'GET' }, 'the session request'),
  );
  if (!session.success) throw storeFailure("The mail store's JMAP session lacks apiUrl, uploadUrl or primaryAccounts.");
  const accountId = session.data.primaryAccounts['urn:ietf:params:jmap:mail'];
  if (accountId === undefined) throw storeFailure("The mail store's JMAP session names no mail account.");
  return {
    accountId,
    address,
    async call(methodCalls, using) {
      const body = JSON.stringify({ using, methodCalls });
      const answer = apiAnswerSchema.safeParse(
        await request(
          session.data.apiUrl,
          { method: 'POST', headers: { 'content-type': 'application/json' }, body },
          'the JMAP request',
        ),
      );
      if (!answer.success) throw storeFailure("The mail store's answer has no methodResponses.");
      return answer.data.methodResponses as MethodCall[];
    },
    async upload(bytes, type) {
      const url = session.data.uploadUrl.replace('{accountId}', encodeURIComponent(accountId));
      const answer = uploadAnswerSchema.safeParse(
        await request(
          url,
          { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(bytes) },
          'an upload',
        ),
      );
      if (!answer.success) throw storeFailure("The mail store's upload answer has no blobId.");
      return answer.data;
    },
  };
}

function storeFailure(
  message: string,
  hint = 'Try again; if it repeats, the sandbox log on stderr has the details.',
): HostedToolError {
  return new HostedToolError('mail_store_error', message, hint);
}
