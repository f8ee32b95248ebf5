import { MethodError } from '../../protocol/method-error.js';

/**
 * The header rules of RFC 8621 §4.6 for an Email/set create, as a conforming server applies them
 * before composing anything: no `headers` property (on the Email or a body part), every
 * `header:Name[:asForm][:all]` with a field name of RFC 5322 characters, one property per header
 * field, a parsed form the field allows (§4.1.2), Content-* only on body parts. The composer would
 * otherwise drop the characters it cannot write and send a field the client never named.
 */

const fieldName = /^[\x21-\x39\x3b-\x7e]+$/;
const formNames = ['asRaw', 'asText', 'asAddresses', 'asGroupedAddresses', 'asMessageIds', 'asDate', 'asURLs'];

/** RFC 8621 §4.1.2: fields of RFC 5322 and RFC 2369 that allow only some parsed forms (asRaw is always allowed). */
const restricted: Record<string, readonly string[]> = {};
for (const [forms, fields] of [
  [['asText'], 'subject comments keywords'],
  [
    ['asAddresses', 'asGroupedAddresses'],
    'from sender reply-to to cc bcc resent-from resent-sender resent-reply-to resent-to resent-cc resent-bcc',
  ],
  [['asMessageIds'], 'message-id in-reply-to references resent-message-id'],
  [['asDate'], 'date resent-date'],
  [['asURLs'], 'list-help list-unsubscribe list-subscribe list-post list-owner list-archive'],
  [[], 'return-path received'],
] as const) {
  for (const field of fields.split(' ')) restricted[field] = forms;
}

const emailConvenience: Record<string, string> = {
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
const partConvenience: Record<string, string> = {
  type: 'content-type',
  charset: 'content-type',
  disposition: 'content-disposition',
  cid: 'content-id',
  language: 'content-language',
  location: 'content-location',
};

interface Finding {
  property: string;
  why: string;
}

function headerFindings(
  object: Record<string, unknown>,
  onEmail: boolean,
  reportAs: (key: string) => string,
): Finding[] {
  const findings: Finding[] = [];
  if ('headers' in object)
    findings.push({
      property: reportAs('headers'),
      why: 'the headers property cannot be set on create; give each field as header:Name',
    });
  const seen = new Set(
    Object.entries(onEmail ? emailConvenience : partConvenience).flatMap(([key, field]) =>
      key in object ? [field] : [],
    ),
  );
  for (const key of Object.keys(object)) {
    if (!key.startsWith('header:')) continue;
    const [, name = '', ...suffix] = key.split(':');
    const isAll = suffix[suffix.length - 1] === 'all';
    const forms = isAll ? suffix.slice(0, -1) : suffix;
    const form = forms[0] ?? 'asRaw';
    const field = name.toLowerCase();
    let why: string | undefined;
    if (!fieldName.test(name)) why = 'the field name must be printable US-ASCII other than ":" (RFC 5322 §2.2)';
    else if (forms.length > 1 || !formNames.includes(form))
      why = 'use header:Name[:asForm][:all] with a form of RFC 8621 §4.1.2';
    else if (form !== 'asRaw' && restricted[field] && !restricted[field].includes(form))
      why = `${name} cannot be given ${form} (RFC 8621 §4.1.2)`;
    else if (onEmail && field.startsWith('content-')) why = 'Content-* fields belong on body parts, not the Email';
    else if (seen.has(field)) why = `another property already sets ${name}`;
    seen.add(field);
    if (why) findings.push({ property: reportAs(key), why });
  }
  return findings;
}

/** Throws invalidProperties listing every property of the create that breaks a header rule. */
export function checkCreateHeaders(create: Record<string, unknown>): void {
  const findings = headerFindings(create, true, (key) => key);
  for (const list of ['textBody', 'htmlBody', 'attachments']) {
    const parts = create[list];
    if (!Array.isArray(parts)) continue;
    parts.forEach((part, index) => {
      if (typeof part === 'object' && part !== null && !Array.isArray(part))
        findings.push(...headerFindings(part as Record<string, unknown>, false, (key) => `${list}/${index}/${key}`));
    });
  }
  if (findings.length === 0) return;
  const properties = [...new Set(findings.map((finding) => finding.property))];
  throw new MethodError(
    'invalidProperties',
    findings.map((finding) => `${JSON.stringify(finding.property)}: ${finding.why}`).join('; '),
    { properties },
  );
}
