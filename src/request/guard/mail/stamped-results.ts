import { authservIdOf } from '../../../config.js';
import type { CheckContext, CheckOutcome, SettleAnswer } from '../../../gate/outgoing.js';
import type { JmapRequest, JmapResponse } from '../../../jmap/jmap-types.js';
import { recordCreatedMail } from '../../../policy/records/created-mail.js';
import { policyRefusal } from '../guard-refusal.js';
import { blobBytes, latin1 } from './blob-lookup.js';
import { isRecord } from '../../../is-record.js';

/**
 * Mail the agent writes into its own inbox. An Authentication-Results field naming the service's
 * authserv-id is its verdict on delivered mail (RFC 8601): a create or import carrying one is refused
 * in every mode, wherever it hides. What the server creates is recorded, so the `known` mode never
 * trusts its fields even if one got through.
 */

const emailWrites = new Set(['Email/set', 'Email/import', 'Email/copy']);

/** A field name as the composer and parsers end up reading it: no whitespace, controls, DEL or colon, any case. */
export function fieldNameKey(name: string): string {
  return name
    .replace(/[\s\u0000-\u001f\u007f:\u00a0\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]/g, '')
    .toLowerCase();
}

/** RFC 2047 encoded words decoded (the asText form decodes them), undecodable ones left as they are. */
function decodeEncodedWords(text: string): string {
  return text.replace(
    /=\?([^?\s]+)\?([bBqQ])\?([^?]*)\?=/g,
    (whole, charset: string, encoding: string, data: string) => {
      try {
        const bytes =
          encoding.toUpperCase() === 'B'
            ? Buffer.from(data, 'base64')
            : Buffer.from(
                data
                  .replace(/_/g, ' ')
                  .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
                'latin1',
              );
        return new TextDecoder(charset.split('*')[0]!.toLowerCase(), { fatal: false }).decode(bytes);
      } catch {
        return whole;
      }
    },
  );
}

function withoutComments(value: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < value.length; i += 1) {
    const char = value.charAt(i);
    if (char === '\\' && depth > 0) i += 1;
    else if (char === '(') depth += 1;
    else if (char === ')' && depth > 0) depth -= 1;
    else if (depth === 0) out += char;
  }
  return out;
}

/** Whether a field value names the authserv-id however a parser might read it: broader than any parser's. */
export function namesAuthservId(value: string, authservId: string): boolean {
  const want = authservId.trim().toLowerCase().replace(/\.$/, '');
  if (want === '') return true;
  const decoded = decodeEncodedWords(value);
  const flat = (text: string): string => text.replace(/[\s"\\]/g, '').toLowerCase();
  return flat(decoded).includes(want) || flat(withoutComments(decoded)).includes(want);
}

function stringsUnder(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsUnder);
  if (isRecord(value)) return Object.values(value).flatMap(stringsUnder);
  return [];
}

/** Every Authentication-Results value a create object sets, at any depth. */
function resultsOfCreate(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => resultsOfCreate(item, out));
  if (!isRecord(value)) return out;
  for (const [rawKey, inner] of Object.entries(value)) {
    const key = rawKey.replace(/^#/, '');
    if (
      /^header:/i.test(key) &&
      fieldNameKey(key.slice('header:'.length).split(':')[0] ?? '') === 'authentication-results'
    )
      out.push(...stringsUnder(inner));
    else if (key === 'headers' && Array.isArray(inner)) {
      for (const field of inner)
        if (isRecord(field) && typeof field.name === 'string' && fieldNameKey(field.name) === 'authentication-results')
          out.push(...stringsUnder(field.value));
    }
    resultsOfCreate(inner, out);
  }
  return out;
}

/** The Authentication-Results values of a raw message's header section (folded lines joined). */
export function resultsOfRaw(bytes: Uint8Array): string[] {
  const text = latin1(bytes);
  const end = /\r?\n\r?\n/.exec(text);
  const section = (end ? text.slice(0, end.index) : text).replace(/\r?\n(?=[ \t])/g, '');
  return section.split(/\r?\n|\r/).flatMap((line) => {
    const colon = line.indexOf(':');
    return colon >= 0 && fieldNameKey(line.slice(0, colon)) === 'authentication-results' ? [line.slice(colon + 1)] : [];
  });
}

function refusal(what: string, detail: string) {
  return policyRefusal(`${what} ${detail}`, { layer: 'default', rule: 'stampedResults' }, { write: what });
}

async function checkCalls(request: JmapRequest, context: CheckContext): Promise<void> {
  const authservId = authservIdOf(await context.config());
  const blobCreates = new Map<string, unknown>();
  const forged = (values: readonly string[]) => values.some((value) => namesAuthservId(value, authservId));
  const stamped = `carries an Authentication-Results field naming this service (${authservId}); only the service writes that field, on mail it delivers`;
  for (const [method, args] of request.methodCalls) {
    if (method === 'Blob/upload' && isRecord(args.create))
      for (const [id, create] of Object.entries(args.create)) blobCreates.set(id, create);
    if (method === 'Email/set') {
      if ('#create' in args)
        throw refusal('Email/set', 'takes its creates from a result reference, so what it writes cannot be checked');
      for (const [id, create] of Object.entries(isRecord(args.create) ? args.create : {}))
        if (forged(resultsOfCreate(create))) throw refusal(`the mail ${id} (Email/set)`, stamped);
    }
    if (method === 'Email/import') {
      if ('#emails' in args)
        throw refusal('Email/import', 'takes its mail from a result reference, so what it writes cannot be checked');
      for (const [id, create] of Object.entries(isRecord(args.emails) ? args.emails : {})) {
        const blobId = isRecord(create) ? create.blobId : undefined;
        if (typeof blobId !== 'string' || Object.keys(create as object).some((key) => key.startsWith('#')))
          throw refusal(`the mail ${id} (Email/import)`, 'names no plain blobId, so what it writes cannot be checked');
        if (forged(resultsOfRaw(await blobBytes(context, blobId, blobCreates))))
          throw refusal(`the mail ${id} (Email/import)`, stamped);
      }
    }
  }
}

function createdIds(request: JmapRequest, response: JmapResponse): string[] {
  const calls = new Set(
    request.methodCalls.filter(([method]) => emailWrites.has(method)).map(([, , callId]) => callId),
  );
  return response.methodResponses.flatMap(([name, args, callId]) => {
    if (!emailWrites.has(name) || !calls.has(callId) || !isRecord(args.created)) return [];
    return Object.values(args.created).flatMap((made) =>
      isRecord(made) && typeof made.id === 'string' ? [made.id] : [],
    );
  });
}

/** Runs the rest of the check (`next`) after refusing stamped results; its settle records the created ids. */
export async function withCreatedMail(
  request: JmapRequest,
  context: CheckContext,
  next: () => Promise<CheckOutcome | void>,
): Promise<CheckOutcome | void> {
  if (!request.methodCalls.some(([method]) => emailWrites.has(method))) return next();
  await checkCalls(request, context);
  const outcome = await next();
  const sent = outcome?.request ?? request;
  return {
    ...outcome,
    settle: async (answer: SettleAnswer) => {
      const result = await outcome?.settle?.(answer);
      if (answer.kind === 'batch')
        await recordCreatedMail((await context.inbox()).stateDir, createdIds(sent, answer.response));
      return result;
    },
  };
}
