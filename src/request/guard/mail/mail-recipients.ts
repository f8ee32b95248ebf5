import { normaliseAddress, parseAddressList, type NormalisedAddress } from '../../../policy/address-matcher.js';

/**
 * Everyone a mail goes to, from every place that can hold them. With an envelope, its rcptTo is the
 * list (RFC 8621 §7); without one the server builds it from To, Cc and Bcc, which a create may
 * spell as properties, as `header:To…` in any form (`:asRaw`, `:asText`, `:asAddresses`,
 * `:asGroupedAddresses`, each with `:all`), or in `headers`; all of them are judged, every instance.
 * What cannot be read as addresses is returned in `unreadable` so the guard can refuse, not guess.
 */

export interface Recipients {
  addresses: NormalisedAddress[];
  /** Places that name recipients in a form the guard cannot read (e.g. `header:Bcc:asDate`). */
  unreadable: string[];
}

/** Header fields whose addresses receive the mail or could (Resent-* are judged too: some servers honour them). */
export const recipientFields = new Set(['to', 'cc', 'bcc', 'resent-to', 'resent-cc', 'resent-bcc']);
const propertyFields = ['to', 'cc', 'bcc'] as const;

/**
 * A field name as a lenient composer or parser reads it: compatibility forms folded, whitespace,
 * control characters, DEL, ':' and invisible joiners dropped, lower case. Matching on this (the
 * create rules refuse such names before they leave) keeps `B cc` or `Bcc\u00a0` from passing as
 * some other field should one slip through.
 */
export function fieldKey(name: string): string {
  return name
    .normalize('NFKC')
    .replace(/[\s\x00-\x20\x7f:\u200b-\u200d\u2060\ufeff]/gu, '')
    .toLowerCase();
}

function collector(): Recipients & { add(found: Recipients): void } {
  const addresses: NormalisedAddress[] = [];
  const unreadable: string[] = [];
  return {
    addresses,
    unreadable,
    add(found) {
      for (const address of found.addresses)
        if (!addresses.some((a) => a.address === address.address)) addresses.push(address);
      unreadable.push(...found.unreadable);
    },
  };
}

function fromRaw(text: unknown, where: string): Recipients {
  if (typeof text !== 'string') return { addresses: [], unreadable: [where] };
  const parsed = parseAddressList(text);
  return { addresses: parsed.addresses, unreadable: parsed.invalid.length > 0 ? [where] : [] };
}

/** JMAP EmailAddress[] (RFC 8621 §4.1.2.3); null means none. */
function fromAddressList(list: unknown, where: string): Recipients {
  if (list === null || list === undefined) return { addresses: [], unreadable: [] };
  if (!Array.isArray(list)) return { addresses: [], unreadable: [where] };
  const addresses: NormalisedAddress[] = [];
  for (const item of list) {
    const email = typeof item === 'object' && item !== null ? (item as { email?: unknown }).email : undefined;
    const parsed = typeof email === 'string' ? normaliseAddress(email) : undefined;
    if (!parsed) return { addresses, unreadable: [where] };
    addresses.push(parsed);
  }
  return { addresses, unreadable: [] };
}

/** JMAP EmailAddressGroup[] (RFC 8621 §4.1.2.4). */
function fromGroups(groups: unknown, where: string): Recipients {
  if (groups === null || groups === undefined) return { addresses: [], unreadable: [] };
  if (!Array.isArray(groups)) return { addresses: [], unreadable: [where] };
  const all = collector();
  for (const group of groups)
    all.add(
      fromAddressList(
        typeof group === 'object' && group !== null ? (group as { addresses?: unknown }).addresses : undefined,
        where,
      ),
    );
  return all;
}

/** One `header:Name:form[:all]` value of a create. */
function fromHeaderProperty(form: string | undefined, isAll: boolean, value: unknown, where: string): Recipients {
  if (value === null) return { addresses: [], unreadable: [] };
  const values = isAll ? value : [value];
  if (!Array.isArray(values)) return { addresses: [], unreadable: [where] };
  const all = collector();
  for (const one of values) {
    if (form === undefined || form === 'asraw' || form === 'astext') all.add(fromRaw(one, where));
    else if (form === 'asaddresses') all.add(fromAddressList(one, where));
    else if (form === 'asgroupedaddresses') all.add(fromGroups(one, where));
    else all.add({ addresses: [], unreadable: [where] });
  }
  return all;
}

const headerProperty = /^header:([^:]+)(?::(as[a-z]+))?(:all)?$/i;

/** The recipients a created Email names in its headers (the properties, `header:…` and `headers`), top-level body part included. */
export function recipientsOfCreate(create: Readonly<Record<string, unknown>>): Recipients {
  const all = collector();
  for (const field of propertyFields) if (field in create) all.add(fromAddressList(create[field], field));
  const layers: Readonly<Record<string, unknown>>[] = [create];
  // A top-level body part's own header fields end up in the message header too.
  const top = create.bodyStructure;
  if (typeof top === 'object' && top !== null && !Array.isArray(top)) layers.push(top as Record<string, unknown>);
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      const match = headerProperty.exec(key);
      if (match?.[1] && recipientFields.has(fieldKey(match[1])))
        all.add(fromHeaderProperty(match[2]?.toLowerCase(), match[3] !== undefined, value, key));
    }
    all.add(recipientsOfHeaderList(layer.headers, 'headers'));
  }
  return all;
}

/** The recipients in a list of raw header fields ({name, value}, as JMAP's `headers` or a parsed message's). */
export function recipientsOfHeaderList(headers: unknown, where = 'headers'): Recipients {
  if (headers === undefined || headers === null) return { addresses: [], unreadable: [] };
  if (!Array.isArray(headers)) return { addresses: [], unreadable: [where] };
  const all = collector();
  for (const header of headers) {
    const { name, value } = (typeof header === 'object' && header !== null ? header : {}) as {
      name?: unknown;
      value?: unknown;
    };
    if (typeof name !== 'string') {
      all.add({ addresses: [], unreadable: [where] });
      continue;
    }
    if (recipientFields.has(fieldKey(name))) all.add(fromRaw(value, `${where} ${name}`));
  }
  return all;
}

/** The envelope's rcptTo (RFC 8621 §7: it replaces the header recipients), or undefined when none is given. */
export function recipientsOfEnvelope(envelope: unknown): Recipients | undefined {
  if (envelope === undefined || envelope === null) return undefined;
  const rcptTo = typeof envelope === 'object' ? (envelope as { rcptTo?: unknown }).rcptTo : undefined;
  if (!Array.isArray(rcptTo)) return { addresses: [], unreadable: ['envelope'] };
  // An empty rcptTo sends nothing (noRecipients); judge the headers then, should a server fall back to them.
  if (rcptTo.length === 0) return undefined;
  return fromAddressList(rcptTo, 'envelope.rcptTo');
}
