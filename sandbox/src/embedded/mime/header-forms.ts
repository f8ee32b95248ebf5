import { addressParser, decodeWords } from 'postal-mime';
import type { RawHeader } from './parse-message.js';

/** RFC 8621 §4.1.2 EmailAddress. */
export interface EmailAddress {
  name: string | null;
  email: string;
}

const forms = ['Raw', 'Text', 'Addresses', 'GroupedAddresses', 'MessageIds', 'Date', 'URLs'] as const;
type HeaderForm = (typeof forms)[number];

/** A parsed `header:Name[:asForm][:all]` property name (RFC 8621 §4.1.3). */
export interface HeaderProperty {
  name: string;
  form: HeaderForm;
  isAll: boolean;
}

/** Parses a `header:` property name; undefined when it is malformed. */
export function parseHeaderProperty(property: string): HeaderProperty | undefined {
  const pieces = property.split(':');
  if (pieces[0] !== 'header' || !pieces[1]) return undefined;
  let rest = pieces.slice(2);
  const isAll = rest[rest.length - 1] === 'all';
  if (isAll) rest = rest.slice(0, -1);
  if (rest.length > 1) return undefined;
  let form: HeaderForm = 'Raw';
  if (rest.length === 1) {
    const match = forms.find((candidate) => `as${candidate}` === rest[0]);
    if (!match) return undefined;
    form = match;
  }
  return { name: pieces[1], form, isAll };
}

/** The value of a `header:` property over a header list: last instance, or all with `:all`. */
export function headerPropertyValue(headers: RawHeader[], property: HeaderProperty): unknown {
  const values = headers
    .filter((header) => header.name.toLowerCase() === property.name.toLowerCase())
    .map((header) => header.value);
  if (property.isAll) return values.map((value) => convertHeader(value, property.form));
  const last = values[values.length - 1];
  return last === undefined ? null : convertHeader(last, property.form);
}

/** Converts one raw header value into the given RFC 8621 §4.1.2 form. */
export function convertHeader(value: string, form: HeaderForm): unknown {
  switch (form) {
    case 'Raw':
      return value;
    case 'Text':
      return asText(value);
    case 'Addresses':
      return asAddresses(value);
    case 'GroupedAddresses':
      return asGroupedAddresses(value);
    case 'MessageIds':
      return asMessageIds(value);
    case 'Date':
      return asDate(value);
    case 'URLs':
      return asUrls(value);
  }
}

/** Unfolded, encoded words decoded, trimmed (RFC 8621 Text form). */
export function asText(value: string): string {
  return decodeWords(value.replace(/\r?\n[ \t]/g, ' ')).trim();
}

/** Flattened list of addresses (RFC 8621 Addresses form). */
export function asAddresses(value: string): EmailAddress[] {
  return addressParser(value, { flatten: true }).flatMap((entry) =>
    entry.address !== undefined ? [{ name: entry.name ? decodeWords(entry.name) : null, email: entry.address }] : [],
  );
}

function asGroupedAddresses(value: string): { name: string | null; addresses: EmailAddress[] }[] {
  const groups: { name: string | null; addresses: EmailAddress[] }[] = [];
  for (const entry of addressParser(value)) {
    if (entry.group) {
      groups.push({
        name: decodeWords(entry.name),
        addresses: entry.group.map((member) => ({
          name: member.name ? decodeWords(member.name) : null,
          email: member.address,
        })),
      });
    } else {
      const address = { name: entry.name ? decodeWords(entry.name) : null, email: entry.address };
      const previous = groups[groups.length - 1];
      if (previous && previous.name === null) previous.addresses.push(address);
      else groups.push({ name: null, addresses: [address] });
    }
  }
  return groups;
}

/** Message ids without angle brackets, or null when none parse (RFC 8621 MessageIds form). */
export function asMessageIds(value: string): string[] | null {
  const ids = [...value.matchAll(/<([^<>\s]+)>/g)].map((match) => match[1] ?? '');
  if (ids.length) return ids;
  const bare = value.trim();
  return bare && !/\s/.test(bare) ? [bare] : null;
}

/** ISO 8601 date, or null when unparsable (RFC 8621 Date form). */
export function asDate(value: string): string | null {
  const time = Date.parse(value.replace(/\s*\([^)]*\)\s*$/, ''));
  return Number.isNaN(time) ? null : new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function asUrls(value: string): string[] | null {
  const urls = [...value.matchAll(/<([^<>]+)>/g)].map((match) => (match[1] ?? '').trim());
  return urls.length ? urls : null;
}
