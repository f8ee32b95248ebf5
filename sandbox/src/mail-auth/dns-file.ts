import { open } from 'node:fs/promises';
import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';
import { SandboxError } from '../auth/sandbox-error.js';
import { dnsLimits, emptyDnsRecords, mergeDnsRecords, normalizeDnsName, type DnsRecords } from './dns-records.js';

const hostName = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
const isHostName = (name: string): boolean => hostName.test(normalizeDnsName(name));

const dnsName = z.string().refine(isHostName, {
  error:
    'is not a DNS name (dot-separated labels of letters, digits, "-" or "_", at most 63 characters each and 253 in all)',
});

/** One name's records: a non-empty list, capped so one name cannot slow every delivery. */
const recordList = <T extends z.ZodType>(record: T) =>
  z
    .array(record)
    .min(1, 'lists no record')
    .max(dnsLimits.maxRecordsPerName, `lists more than ${dnsLimits.maxRecordsPerName} records`);

const zoneOf = <T extends z.ZodType>(record: T) => z.record(dnsName, recordList(record)).optional();

/**
 * The `--dns-file` format: `{"TXT": {"name": ["record", …]}, "MX": {"name": ["10 mx.host"]},
 * "A": {"name": ["127.0.0.1"]}, "AAAA": …, "PTR": {"1.0.0.127.in-addr.arpa": ["host"]}}`. A TXT
 * record may also be given as the list of its character-strings. Names not listed do not exist.
 */
export const dnsFileSchema = z.strictObject({
  TXT: zoneOf(
    z.union([z.string().transform((text) => [text]), z.array(z.string()).min(1, 'lists no character-string')]),
  ),
  MX: zoneOf(
    z
      .string()
      .regex(/^\s*\d{1,5}\s+\S+\s*$/, 'is not "PRIORITY HOST" (for example "10 mx.example.org")')
      .refine((text) => Number(text.trim().split(/\s+/)[0]) <= 65_535, { error: 'has a priority above 65535' })
      .refine((text) => isHostName(text.trim().split(/\s+/)[1] ?? ''), { error: 'does not name a host' })
      .transform((text) => {
        const [priority = '0', exchange = ''] = text.trim().split(/\s+/);
        return `${Number(priority)} ${normalizeDnsName(exchange)}`;
      }),
  ),
  A: zoneOf(z.string().refine((text) => isIPv4(text), { error: 'is not an IPv4 address' })),
  AAAA: zoneOf(z.string().refine((text) => isIPv6(text), { error: 'is not an IPv6 address' })),
  PTR: zoneOf(z.string().refine(isHostName, { error: 'is not a host name' }).transform(normalizeDnsName)),
});

const fileHint =
  'Write it as JSON like {"TXT": {"example.org": ["v=spf1 ip4:127.0.0.1 -all"]}, "MX": {"example.org": ["10 mx.example.org"]}, "A": {"mx.example.org": ["127.0.0.1"]}}; names not listed do not exist.';

/** Reads and checks a DNS file; a SandboxError says what is wrong in it and where. */
export async function loadDnsFile(path: string): Promise<DnsRecords> {
  const text = await readCapped(path);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SandboxError(
      `The DNS file ${path} is not JSON: ${error instanceof Error ? error.message : String(error)}.`,
      fileHint,
    );
  }
  const parsed = dnsFileSchema.safeParse(json);
  if (!parsed.success) {
    // zod files a bad record name as "Invalid key in record" and keeps the name's own complaint inside.
    const messageOf = (issue: z.core.$ZodIssue): string =>
      issue.code === 'invalid_key' && issue.issues[0] ? issue.issues[0].message : issue.message;
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.map(String).join(' › ') || 'the top level'}: ${messageOf(issue)}`);
    const more = parsed.error.issues.length > 5 ? `; and ${parsed.error.issues.length - 5} more` : '';
    throw new SandboxError(`The DNS file ${path} is not valid: ${problems.join('; ')}${more}.`, fileHint);
  }
  const zone = emptyDnsRecords();
  const tooBig = mergeDnsRecords(zone, parsed.data);
  if (tooBig)
    throw new SandboxError(
      `The DNS file ${path} is not valid: ${tooBig}.`,
      'Shorten the records of that name; a real DNS answer could not carry them either.',
    );
  return zone;
}

async function readCapped(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new SandboxError(
      `The DNS file ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
      'Pass the path of an existing JSON file to --dns-file.',
    );
  }
  try {
    const stat = await handle.stat();
    const { size } = stat;
    if (!stat.isFile())
      throw new SandboxError(
        `The DNS file ${path} is not a regular file.`,
        'Pass the path of a JSON file to --dns-file.',
      );
    if (size > dnsLimits.maxFileBytes) {
      throw new SandboxError(
        `The DNS file ${path} is ${size} bytes, more than the ${dnsLimits.maxFileBytes} the sandbox reads.`,
        'List only the names the test needs.',
      );
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
