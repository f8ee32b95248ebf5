/** The record types the sandbox's resolver answers: what SPF, DKIM and DMARC evaluation asks for. */
export const dnsRecordTypes = ['TXT', 'MX', 'A', 'AAAA', 'PTR'] as const;
export type DnsRecordType = (typeof dnsRecordTypes)[number];

/**
 * A zone as the resolver holds it: type → name (lower case, no trailing dot) → records. A TXT
 * record is the list of its character-strings (as `dns.resolveTxt` answers); an MX record is
 * "PRIORITY HOST"; the others are an address or a host name.
 */
export interface DnsRecords {
  TXT: Map<string, string[][]>;
  MX: Map<string, string[]>;
  A: Map<string, string[]>;
  AAAA: Map<string, string[]>;
  PTR: Map<string, string[]>;
}

/** Records to add to a zone: keyed like the DNS file, or another zone. */
export type DnsRecordsInput =
  | ({ TXT?: Record<string, string[][]> } & { [type in Exclude<DnsRecordType, 'TXT'>]?: Record<string, string[]> })
  | DnsRecords;

/**
 * Caps that keep one name from costing a delivery more than a real answer could: a DNS message
 * is at most 65,535 octets (RFC 1035 §4.2.2), so the records of one name and type may not take
 * more; the file is read up to 4 MiB.
 */
export const dnsLimits = {
  maxFileBytes: 4 * 1024 * 1024,
  maxAnswerBytes: 65_535,
  maxRecordsPerName: 100,
  maxNames: 10_000,
} as const;

/** Lower case without the root's trailing dot: DNS names compare case-insensitively (RFC 4343). */
export function normalizeDnsName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

/** An empty zone: every name is unknown. */
export function emptyDnsRecords(): DnsRecords {
  return { TXT: new Map(), MX: new Map(), A: new Map(), AAAA: new Map(), PTR: new Map() };
}

/** Octets of one record's data on the wire: a TXT character-string carries a length octet per 255. */
function recordBytes(record: string | string[]): number {
  if (typeof record === 'string') return Buffer.byteLength(record);
  return record.reduce(
    (sum, part) => sum + Buffer.byteLength(part) + Math.max(1, Math.ceil(Buffer.byteLength(part) / 255)),
    0,
  );
}

/**
 * Adds `more` to `zone`; records of a name already there are appended, as two zone-file lines
 * would be. Returns what is wrong when a name would answer more than one DNS message can carry.
 */
export function mergeDnsRecords(zone: DnsRecords, more: DnsRecordsInput): string | undefined {
  for (const type of dnsRecordTypes) {
    const target = zone[type] as Map<string, Array<string | string[]>>;
    const names: Map<string, unknown[]> | Record<string, unknown[]> = more[type] ?? {};
    for (const [name, records] of names instanceof Map ? names.entries() : Object.entries(names)) {
      const key = normalizeDnsName(name);
      const joined = [...(target.get(key) ?? []), ...(records as Array<string | string[]>)];
      if (joined.length > dnsLimits.maxRecordsPerName)
        return `${type} › ${key} has more than ${dnsLimits.maxRecordsPerName} records`;
      const bytes = joined.reduce<number>((sum, record) => sum + recordBytes(record), 0);
      if (bytes > dnsLimits.maxAnswerBytes)
        return `${type} › ${key} holds ${bytes} octets of records, more than the ${dnsLimits.maxAnswerBytes} one DNS answer can carry`;
      target.set(key, joined);
    }
    if (target.size > dnsLimits.maxNames) return `${type} has more than ${dnsLimits.maxNames} names`;
  }
  return undefined;
}
