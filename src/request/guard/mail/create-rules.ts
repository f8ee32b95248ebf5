import type { JmapRequest } from '../../../jmap/jmap-types.js';
import { recipientFields } from './mail-recipients.js';
import { isRecord } from '../../../is-record.js';

/**
 * The Email/set creates a conforming server refuses (RFC 8621 §4.6), refused before they leave: a
 * lenient composer would send something other than what the guard read (`B\tcc` becomes a Bcc).
 * Refused: a field name outside RFC 5322 ftext, a malformed `header:` property, `headers`, two
 * properties for one field, a form the field does not allow (§4.1.2), Content-* on the Email
 * itself, and recipient fields on a body part (a single part's fields become the message's).
 */

const forms = new Set(['asRaw', 'asText', 'asAddresses', 'asGroupedAddresses', 'asMessageIds', 'asDate', 'asURLs']);

/**
 * RFC 8621 §4.1.2: the fields of RFC 5322 and 2369 by the parsed forms each allows beside asRaw. A loop
 * fills the table, not a callback: a callback's mutant would stop the module loading, which passes as no test failing.
 */
const fieldsByForms: Record<string, readonly string[]> = {
  asText: ['subject', 'comments', 'keywords'],
  'asAddresses asGroupedAddresses': [
    'from',
    'sender',
    'reply-to',
    'to',
    'cc',
    'bcc',
    'resent-from',
    'resent-sender',
    'resent-reply-to',
    'resent-to',
    'resent-cc',
    'resent-bcc',
  ],
  asMessageIds: ['message-id', 'in-reply-to', 'references', 'resent-message-id'],
  asDate: ['date', 'resent-date'],
  asURLs: ['list-help', 'list-unsubscribe', 'list-subscribe', 'list-post', 'list-owner', 'list-archive'],
  asRaw: ['return-path', 'received'],
};
const formsOfField = new Map<string, string>();
for (const [allowed, fields] of Object.entries(fieldsByForms))
  for (const field of fields) formsOfField.set(field, allowed);

/** The header field each convenience property of an Email or a body part stands for. */
const emailFieldOf: Record<string, string> = {
  from: 'from',
  sender: 'sender',
  replyTo: 'reply-to',
  to: 'to',
  cc: 'cc',
  bcc: 'bcc',
  subject: 'subject',
  sentAt: 'date',
  messageId: 'message-id',
  inReplyTo: 'in-reply-to',
  references: 'references',
};
const partFieldOf: Record<string, string> = {
  type: 'content-type',
  charset: 'content-type',
  disposition: 'content-disposition',
  cid: 'content-id',
  language: 'content-language',
  location: 'content-location',
};

/** A name as the model can read it back: anything but printable ASCII as \u{…}. */
function shown(name: string): string {
  return `"${name.replace(/[^\x21-\x7e]/gu, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`)}"`;
}

/** Why a header field name is not one RFC 5322 allows, or undefined when it is. */
export function fieldNameProblem(name: string): string | undefined {
  if (name === '') return 'an empty field name';
  return /^[\x21-\x39\x3b-\x7e]+$/.test(name)
    ? undefined
    : `the field name ${shown(name)}, which holds a character RFC 5322 does not allow in one (only printable US-ASCII but ":")`;
}

/** The problems of one Email or body part; `fields` collects the header fields it sets. */
function partProblems(
  part: Readonly<Record<string, unknown>>,
  where: string,
  isEmail: boolean,
  fields: Set<string>,
): string[] {
  const problems: string[] = [];
  for (const [property, field] of Object.entries(isEmail ? emailFieldOf : partFieldOf))
    if (property in part) fields.add(field);
  if ('headers' in part) {
    problems.push(
      `${where} has the headers property, which a create may not carry (each field is its own header:Name property)`,
    );
    for (const header of Array.isArray(part.headers) ? part.headers : [part.headers]) {
      const name = isRecord(header) ? header.name : undefined;
      const why = typeof name === 'string' ? fieldNameProblem(name) : 'a field without a name';
      if (why) problems.push(`${where} names in headers ${why}`);
    }
  }
  for (const key of Object.keys(part)) {
    const property = key.startsWith('#') ? key.slice(1) : key;
    if (!property.startsWith('header:')) continue;
    const [name, ...rest] = property.slice('header:'.length).split(':') as [string, ...string[]];
    const why = fieldNameProblem(name);
    if (why) {
      problems.push(`${where} names in ${shown(key)} ${why}`);
      continue;
    }
    const field = name.toLowerCase();
    const formParts = rest[rest.length - 1] === 'all' ? rest.slice(0, -1) : rest;
    const form = formParts[0];
    if (formParts.length > 1 || (form !== undefined && !forms.has(form))) {
      problems.push(`${where} has ${shown(key)}, which is not header:Name[:asForm][:all] with a form of RFC 8621`);
      continue;
    }
    const allowed = formsOfField.get(field);
    if (form !== undefined && form !== 'asRaw' && allowed !== undefined && !allowed.split(' ').includes(form))
      problems.push(`${where} asks for ${name} ${form}, a form RFC 8621 does not allow for that field`);
    if (isEmail && field.startsWith('content-'))
      problems.push(`${where} sets ${name} on the Email itself, where only body parts may carry Content-* fields`);
    if (!isEmail && recipientFields.has(field))
      problems.push(`${where} sets ${name} on a body part, whose fields can become the message's own`);
    if (fields.has(field))
      problems.push(`${where} sets the field ${name} twice (RFC 8621 allows one property per field)`);
    fields.add(field);
  }
  return problems;
}

/** The problems of one Email/set create, its body parts included. */
export function emailCreateProblems(create: Readonly<Record<string, unknown>>, where: string): string[] {
  const topFields = new Set<string>();
  const problems = partProblems(create, where, true, topFields);
  const walk = (part: unknown, path: string, fields: Set<string>): void => {
    if (!isRecord(part)) return;
    problems.push(...partProblems(part, `${where}, body part ${path}`, false, fields));
    if (Array.isArray(part.subParts)) part.subParts.forEach((sub, i) => walk(sub, `${path}/subParts/${i}`, new Set()));
  };
  for (const list of ['textBody', 'htmlBody', 'attachments']) {
    const parts = create[list];
    if (Array.isArray(parts)) parts.forEach((part, i) => walk(part, `${list}/${i}`, new Set()));
  }
  const rootFields = new Set<string>();
  walk(create.bodyStructure, 'bodyStructure', rootFields);
  for (const field of rootFields)
    if (topFields.has(field))
      problems.push(`${where} sets the field ${field} both on the Email and on its bodyStructure`);
  return problems;
}

/** What is wrong with the Email/set creates of a batch, one sentence each; empty when nothing is. */
export function forbiddenCreateProblems(request: JmapRequest): string[] {
  return request.methodCalls.flatMap(([method, args, callId]) => {
    if (method !== 'Email/set' || !isRecord(args.create)) return [];
    return Object.entries(args.create).flatMap(([creationId, create]) =>
      isRecord(create) ? emailCreateProblems(create, `the mail ${creationId} (Email/set call ${callId})`) : [],
    );
  });
}
