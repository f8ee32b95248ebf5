import { Readable } from 'node:stream';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { SandboxError } from '../auth/sandbox-error.js';
import {
  emptyDnsRecords,
  mergeDnsRecords,
  normalizeDnsName,
  type DnsRecords,
  type DnsRecordsInput,
} from './dns-records.js';
import { loadOrCreateDomainKey, type DomainKey } from './domain-key.js';
import { startMessageCheck, type MessageCheck } from './message-check.js';
import { createSandboxResolver, type SandboxResolver } from './sandbox-resolver.js';
import type { MethodResult, SmtpIdentity } from './sender-verdict.js';

/**
 * The address the service's own mail is judged as coming from. It is a documentation address
 * (RFC 5737), not loopback: every SMTP client of the sandbox connects from 127.0.0.1, and if the
 * domain's SPF record allowed that, anyone could send as the service's domain with an SPF pass.
 */
export const serviceRelayAddress = '192.0.2.1';

/** The service's own mail after authentication: as it leaves for the world, and as its inboxes get it. */
export interface AuthenticatedOwnMail {
  /** DKIM-signed with the domain's key. */
  signed: Buffer;
  /** `signed` with the service's Authentication-Results on top. */
  stamped: Buffer;
  results: MethodResult[];
}

/** What the backends call for mail their inboxes send (the seam in mail-backend.ts). */
export interface OwnMailAuthenticator {
  authenticate(raw: Buffer, sender: string): Promise<AuthenticatedOwnMail>;
}

/** The sandbox's mail authentication: its DNS, its domain key, its authserv-id. */
export interface MailAuthority extends OwnMailAuthenticator {
  authservId: string;
  domainKey: DomainKey;
  resolver: SandboxResolver;
  /** Checks a message from outside as it arrives over SMTP. */
  checkInbound(identity: SmtpIdentity): MessageCheck;
  /** Publishes records for names the zone does not list yet (the drill's domains); what is wrong, if anything. */
  publish(records: DnsRecordsInput): string | undefined;
}

export interface MailAuthorityOptions {
  domain: string;
  authservId: string;
  /** Records of the world outside (`--dns-file`); without them every outside name is unknown. */
  dns?: DnsRecords;
  /** Where the domain key is kept; in memory when absent. */
  keyDir?: string;
  now?: () => number;
}

/**
 * The records the service publishes for its domain (RFC 7208 §3, RFC 6376 §3.6.2.1, RFC 7489
 * §6.1): its relay may send for it, its key signs for it, and mail that fails both is to be rejected.
 */
export function ownDomainRecords(domain: string, key: DomainKey): DnsRecordsInput {
  return {
    TXT: {
      [domain]: [[`v=spf1 ip4:${serviceRelayAddress} -all`]],
      [`${key.selector}._domainkey.${domain}`]: [[key.record]],
      [`_dmarc.${domain}`]: [['v=DMARC1; p=reject']],
    },
  };
}

/** Builds the authority: loads or makes the domain key, and publishes the domain's records beside `dns`. */
export async function createMailAuthority(options: MailAuthorityOptions): Promise<MailAuthority> {
  const now = options.now ?? Date.now;
  const domainKey = await loadOrCreateDomainKey(options.keyDir);
  const zone = emptyDnsRecords();
  const problem =
    mergeDnsRecords(zone, ownDomainRecords(options.domain, domainKey)) ?? mergeDnsRecords(zone, options.dns ?? {});
  if (problem)
    throw new SandboxError(
      `The DNS records cannot be published: ${problem}.`,
      "Shorten the DNS file's records for the sandbox's own domain.",
    );
  const resolver = createSandboxResolver(zone);
  const context = { resolver, authservId: options.authservId, now };

  const checkBuffer = async (
    raw: Buffer,
    identity: SmtpIdentity,
  ): Promise<{ stamped: Buffer; results: MethodResult[] }> => {
    const check = startMessageCheck(identity, context);
    for (let at = 0; at < raw.length; at += 64 * 1024) {
      if (!check.write(raw.subarray(at, at + 64 * 1024))) await new Promise<void>((resolve) => check.onDrain(resolve));
    }
    const outcome = await check.finish();
    if (outcome.kind === 'refused')
      throw new SandboxError(
        `The service's own message was refused: ${outcome.reason}.`,
        'Send a message with a smaller header section.',
      );
    return { stamped: outcome.stamp(raw), results: outcome.results };
  };

  return {
    authservId: options.authservId,
    domainKey,
    resolver,
    checkInbound: (identity) => startMessageCheck(identity, context),
    publish: (records) => mergeDnsRecords(zone, withoutListedNames(zone, records)),
    async authenticate(raw, sender) {
      const signing = {
        signingDomain: options.domain,
        selector: domainKey.selector,
        privateKey: domainKey.privateKeyPem,
        algorithm: domainKey.algorithm,
        canonicalization: 'relaxed/relaxed',
      };
      // One chunk, not mailauth's 64 KiB slices of a Buffer: a long line is then hashed once (message-check.ts).
      // signTime is required in practice: without it mailauth reads the clock once for the signed
      // copy of the header and again for the written one, and 1 signature in ~300 fails.
      const { signatures, errors } = await dkimSign(Readable.from([raw]), {
        ...signing,
        signTime: new Date(now()),
        signatureData: [signing],
      });
      if (errors.length) throw new Error(`DKIM signing failed: ${errors.map((error) => error.message).join('; ')}`);
      const signed = Buffer.concat([Buffer.from(signatures, 'latin1'), raw]);
      // Verified for real, as a receiving MTA of the service would, so this path is tested too.
      const { stamped, results } = await checkBuffer(signed, { ip: serviceRelayAddress, helo: options.domain, sender });
      return { signed, stamped, results };
    },
  };
}

/** `records` less the names `zone` already lists: a name's published records are never appended to. */
function withoutListedNames(zone: DnsRecords, records: DnsRecordsInput): DnsRecordsInput {
  const listed = (name: string): boolean =>
    Object.values(zone).some((names: Map<string, unknown>) => names.has(normalizeDnsName(name)));
  const keep = <T>(names: Map<string, T> | Record<string, T> | undefined): Record<string, T> =>
    Object.fromEntries(
      [...(names instanceof Map ? names.entries() : Object.entries(names ?? {}))].filter(([name]) => !listed(name)),
    );
  return {
    TXT: keep(records.TXT),
    MX: keep(records.MX),
    A: keep(records.A),
    AAAA: keep(records.AAAA),
    PTR: keep(records.PTR),
  } as DnsRecordsInput;
}
