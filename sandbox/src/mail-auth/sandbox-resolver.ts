import { normalizeDnsName, type DnsRecords, type DnsRecordType } from './dns-records.js';

/** What mailauth expects back for each record type (the shapes of `dns.promises.resolve`). */
export type ResolverAnswer = string[] | string[][] | Array<{ exchange: string; priority: number }>;

/** The sandbox's DNS: answers from its own zone only, never from the network. */
export interface SandboxResolver {
  /** mailauth's resolver: `(name, type)`, rejecting with ENOTFOUND / ENODATA as `dns.promises` does. */
  resolve(name: string, type: string): Promise<ResolverAnswer>;
}

/** A DNS error as node:dns raises it, so mailauth maps it as it would a real one. */
function dnsError(code: 'ENOTFOUND' | 'ENODATA', type: string, name: string): Error {
  return Object.assign(new Error(`query${type} ${code} ${name}`), { code, hostname: name });
}

/**
 * A resolver over `zone`: a name that is listed under no type does not exist (ENOTFOUND); a name
 * listed under another type has no data of the asked one (ENODATA), as RFC 2308 tells them apart.
 * Answers are copies, so no caller can change the zone.
 */
export function createSandboxResolver(zone: DnsRecords): SandboxResolver {
  const exists = (name: string): boolean => Object.values(zone).some((names: Map<string, unknown>) => names.has(name));
  const resolve = async (rawName: string, rawType: string): Promise<ResolverAnswer> => {
    const name = normalizeDnsName(rawName);
    const type = rawType.toUpperCase();
    const records = Object.hasOwn(zone, type) ? zone[type as DnsRecordType].get(name) : undefined;
    if (!records) throw dnsError(exists(name) ? 'ENODATA' : 'ENOTFOUND', type, name);
    if (type === 'TXT') return (records as string[][]).map((parts) => parts.flatMap(splitCharacterString));
    if (type === 'MX') {
      return (records as string[]).map((record) => {
        const [priority = '0', exchange = ''] = record.split(' ');
        return { priority: Number(priority), exchange };
      });
    }
    return [...(records as string[])];
  };
  return { resolve };
}

/** A long TXT string as the 255-character strings DNS carries it in (RFC 1035 §3.3.14); readers join them. */
function splitCharacterString(text: string): string[] {
  return text.length <= 255 ? [text] : (text.match(/[\s\S]{1,255}/g) ?? [text]);
}
