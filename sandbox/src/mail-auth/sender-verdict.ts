import { isIP } from 'node:net';
import type { AuthStatus, DKIMVerifyResult, DNSResolver } from 'mailauth';
import { dmarc } from 'mailauth/lib/dmarc/index.js';
import { spf } from 'mailauth/lib/spf/index.js';
import type { SandboxResolver } from './sandbox-resolver.js';

/** The SMTP facts SPF judges (RFC 7208 §2): the client's address, its HELO name, MAIL FROM. */
export interface SmtpIdentity {
  ip: string;
  /** The EHLO/HELO argument; empty when the client sent none. */
  helo: string;
  /** MAIL FROM; empty for the null reverse-path of a bounce. */
  sender: string;
}

/** One method's outcome as Authentication-Results reports it (RFC 8601 §2.7). */
export interface MethodResult {
  method: 'dkim' | 'spf' | 'dmarc';
  result: string;
  /** One resinfo, e.g. `spf=pass (…) smtp.mailfrom=a@example.org`. */
  text: string;
}

/** What the verdict needs: the sandbox's DNS, and the name that signs the results. */
export interface VerdictContext {
  resolver: SandboxResolver;
  authservId: string;
}

/**
 * SPF for MAIL FROM (or, for a bounce, postmaster@HELO: RFC 7208 §2.4) from the client's address,
 * then DMARC (RFC 7489 §3.1) over the DKIM results of the message: the same sequence as mailauth's
 * `authenticate`, which cannot be given a stream that stays ours to cap, nor be kept from BIMI's
 * network fetches.
 */
export async function judgeSender(
  dkimResult: DKIMVerifyResult,
  identity: SmtpIdentity,
  ctx: VerdictContext,
): Promise<MethodResult[]> {
  // mailauth's type leaves out the MX answer's objects, which its SPF code reads.
  const resolver: DNSResolver = (name, type) => ctx.resolver.resolve(name, type) as Promise<string[] | string[][]>;
  const helo = identity.helo || `[${identity.ip}]`;
  const spfResult = await spf({
    sender: identity.sender,
    ip: identity.ip,
    helo: isIP(helo) ? `[${helo}]` : helo,
    mta: ctx.authservId,
    resolver,
  });
  const results: MethodResult[] = dkimResult.results.map((row) => describe('dkim', row.status));
  results.push(describe('spf', spfResult.status));

  const passingDkim = dkimResult.results.filter((row) => row.status.result === 'pass');
  const verdict =
    dkimResult.headerFrom.length === 1
      ? await dmarc({
          headerFrom: dkimResult.headerFrom,
          spfDomains: spfResult.status.result === 'pass' ? [spfResult.domain] : [],
          dkimDomains: passingDkim.map((row) => ({
            domain: row.signingDomain,
            ...(row.status.aligned === undefined ? {} : { aligned: row.status.aligned }),
          })),
          resolver,
        })
      : false;
  // mailauth skips DMARC without exactly one author address; RFC 7489 §6.6.1 leaves such mail
  // to the receiver, and a reader must not take the missing result for an absent policy.
  results.push(
    verdict
      ? describe('dmarc', verdict.status)
      : describe('dmarc', {
          result: 'permerror',
          comment: `the From field holds ${dkimResult.headerFrom.length} addresses, not one`,
        }),
  );
  return results;
}

/**
 * `method=result (comment) ptype.property=value …` (RFC 8601 §2.2). Written here rather than
 * taken from mailauth's `info`: its comments leave "(" unescaped, so an address in MAIL FROM could
 * open a comment that swallows the results after it.
 */
export function describe(method: MethodResult['method'], status: AuthStatus & { underSized?: unknown }): MethodResult {
  const parts = [`${method}=${status.result}`];
  if (typeof status.underSized === 'number') parts.push(`(undersized signature: ${status.underSized} bytes unsigned)`);
  if (status.comment) parts.push(`(${escapeComment(status.comment)})`);
  const fields: Record<string, unknown> = { ...status };
  for (const ptype of ['policy', 'smtp', 'body', 'header'] as const) {
    const properties = fields[ptype];
    if (!properties || typeof properties !== 'object') continue;
    for (const [property, value] of Object.entries(properties as Record<string, unknown>)) {
      if (value) parts.push(`${ptype}.${property}=${propertyValue(String(value))}`);
    }
  }
  return { method, result: status.result, text: parts.join(' ') };
}

const flatten = (text: string): string =>
  text
    .replace(/[\x00-\x1f\x7f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

function escapeComment(text: string): string {
  return flatten(text).replace(/[\\()]/g, (char) => `\\${char}`);
}

/** A token when it is one (RFC 2045 §5.1), otherwise a quoted-string. */
function propertyValue(text: string): string {
  const value = flatten(text);
  return /^[^\s\x00-\x1f\x7f-\uffff()<>,;:\\"/[\]?=]+$/.test(value)
    ? value
    : `"${value.replace(/["\\]/g, (char) => `\\${char}`)}"`;
}
