import addressparser from 'nodemailer/lib/addressparser/index.js';
import { normaliseAddress, type NormalisedAddress } from '../../../policy/address-matcher.js';
import { isRecord } from '../../../is-record.js';

/**
 * Every mailbox address a header value names, display names dropped (`"ceo@bank.test" <x@evil.test>` names
 * x@evil.test only); unparseable pieces are returned in `invalid` so a caller can refuse rather than guess.
 */
export function parseAddressList(value: string): { addresses: NormalisedAddress[]; invalid: string[] } {
  const addresses: NormalisedAddress[] = [];
  const invalid: string[] = [];
  for (const entry of addressparser(value, { flatten: true })) {
    if (!entry.address) {
      // A bare group name or an empty element: no recipient, nothing to judge.
      if (entry.name && /@/.test(entry.name)) invalid.push(entry.name);
      continue;
    }
    const parsed = normaliseAddress(entry.address);
    if (parsed) addresses.push(parsed);
    else invalid.push(entry.address);
  }
  return { addresses, invalid };
}

/**
 * Everyone a mail goes to: the envelope's rcptTo (RFC 8621 §7), else To, Cc and Bcc in every spelling
 * and instance a create allows. What cannot be read as addresses is `unreadable`: refused, not guessed.
 */

export interface Recipients {
  addresses: NormalisedAddress[];
  /** Places that name recipients in a form the guard cannot read (e.g. `header:Bcc:asDate`). */
  unreadable: string[];
}

/** Header fields whose addresses receive the mail or could (Resent-* are judged too: some servers honour them). */
export const recipientFields = new Set(['to', 'cc', 'bcc', 'resent-to', 'resent-cc', 'resent-bcc']);
const propertyFields = ['to', 'cc', 'bcc'] as const;

/** A field name as a lenient composer reads it, so `B cc` or `Bcc\u00a0` cannot pass as another field. */
export function fieldKey(name: string): string {
  return name
    .normalize('NFKC')
    .replace(/[\s\x00-\x20\x7f:\u200b-\u200d\u2060\ufeff]/gu, '')
    .toLowerCase();
}

function none(): Recipients {
  return { addresses: [], unreadable: [] };
}

function cannotRead(where: string): Recipients {
  return { addresses: [], unreadable: [where] };
}

/** Several findings as one: each address once, every unreadable place kept. */
function merged(found: readonly Recipients[]): Recipients {
  const addresses: NormalisedAddress[] = [];
  for (const address of found.flatMap((f) => f.addresses))
    if (!addresses.some((a) => a.address === address.address)) addresses.push(address);
  return { addresses, unreadable: found.flatMap((f) => f.unreadable) };
}

function fromRaw(text: unknown, where: string): Recipients {
  if (typeof text !== 'string') return cannotRead(where);
  const parsed = parseAddressList(text);
  return { addresses: parsed.addresses, unreadable: parsed.invalid.length > 0 ? [where] : [] };
}

/** JMAP EmailAddress[] (RFC 8621 §4.1.2.3); null means none. */
function fromAddressList(list: unknown, where: string): Recipients {
  if (list === null || list === undefined) return none();
  if (!Array.isArray(list)) return cannotRead(where);
  const addresses: NormalisedAddress[] = [];
  for (const item of list) {
    const parsed = isRecord(item) && typeof item.email === 'string' ? normaliseAddress(item.email) : undefined;
    if (!parsed) return { addresses, unreadable: [where] };
    addresses.push(parsed);
  }
  return { addresses, unreadable: [] };
}

/** JMAP EmailAddressGroup[] (RFC 8621 §4.1.2.4). */
function fromGroups(groups: unknown, where: string): Recipients {
  if (groups === null || groups === undefined) return none();
  if (!Array.isArray(groups)) return cannotRead(where);
  return merged(groups.map((group) => fromAddressList(isRecord(group) ? group.addresses : undefined, where)));
}

/** One `header:Name:form[:all]` value of a create. */
function fromHeaderProperty(form: string | undefined, isAll: boolean, value: unknown, where: string): Recipients {
  if (value === null) return none();
  const values = isAll ? value : [value];
  if (!Array.isArray(values)) return cannotRead(where);
  return merged(
    values.map((one) => {
      if (form === undefined || form === 'asraw' || form === 'astext') return fromRaw(one, where);
      if (form === 'asaddresses') return fromAddressList(one, where);
      if (form === 'asgroupedaddresses') return fromGroups(one, where);
      return cannotRead(where);
    }),
  );
}

const headerProperty = /^header:([^:]+)(?::(as[a-z]+))?(:all)?$/i;

/** The recipients a created Email names in its headers (the properties, `header:…` and `headers`), top-level body part included. */
export function recipientsOfCreate(create: Readonly<Record<string, unknown>>): Recipients {
  const found = propertyFields.flatMap((field) => (field in create ? [fromAddressList(create[field], field)] : []));
  // A top-level body part's own header fields end up in the message header too.
  const top = create.bodyStructure;
  for (const layer of isRecord(top) ? [create, top] : [create]) {
    for (const [key, value] of Object.entries(layer)) {
      const match = headerProperty.exec(key);
      if (match?.[1] && recipientFields.has(fieldKey(match[1])))
        found.push(fromHeaderProperty(match[2]?.toLowerCase(), match[3] !== undefined, value, key));
    }
    found.push(recipientsOfHeaderList(layer.headers, 'headers'));
  }
  return merged(found);
}

/** The recipients in a list of raw header fields ({name, value}, as JMAP's `headers` or a parsed message's). */
export function recipientsOfHeaderList(headers: unknown, where = 'headers'): Recipients {
  if (headers === undefined || headers === null) return none();
  if (!Array.isArray(headers)) return cannotRead(where);
  return merged(
    headers.map((header) => {
      const { name, value } = isRecord(header) ? header : {};
      if (typeof name !== 'string') return cannotRead(where);
      return recipientFields.has(fieldKey(name)) ? fromRaw(value, `${where} ${name}`) : none();
    }),
  );
}

/** The envelope's rcptTo (RFC 8621 §7: it replaces the header recipients), or undefined when none is given. */
export function recipientsOfEnvelope(envelope: unknown): Recipients | undefined {
  if (envelope === undefined || envelope === null) return undefined;
  const rcptTo = typeof envelope === 'object' ? (envelope as { rcptTo?: unknown }).rcptTo : undefined;
  if (!Array.isArray(rcptTo)) return cannotRead('envelope');
  // An empty rcptTo sends nothing (noRecipients); judge the headers then, should a server fall back to them.
  if (rcptTo.length === 0) return undefined;
  return fromAddressList(rcptTo, 'envelope.rcptTo');
}
