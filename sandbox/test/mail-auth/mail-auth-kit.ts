import { generateKeyPairSync } from 'node:crypto';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import {
  emptyDnsRecords,
  mergeDnsRecords,
  type DnsRecords,
  type DnsRecordsInput,
} from '../../src/mail-auth/dns-records.js';
import { jmap, resultOf, type TestInbox } from '../../../test/cyrus/cyrus-test-kit.js';

/** A domain of the outside world that signs its mail: its key and the records that publish it. */
export interface OutsideDomain {
  domain: string;
  records: { TXT: Record<string, string[][]> };
  /** The message with this domain's DKIM-Signature on top. */
  sign(raw: Buffer): Promise<Buffer>;
}

/**
 * An outside domain with an RSA-2048 DKIM key (what most of the world signs with), an SPF record
 * and a DMARC record; `spf` and `dmarc` replace the defaults (loopback may send, p=reject).
 */
export function outsideDomain(domain: string, options: { spf?: string; dmarc?: string } = {}): OutsideDomain {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const selector = 'mail2024';
  const publicDer = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  const privatePem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return {
    domain,
    records: {
      TXT: {
        [domain]: [[options.spf ?? 'v=spf1 ip4:127.0.0.1 -all']],
        [`${selector}._domainkey.${domain}`]: [[`v=DKIM1; k=rsa; p=${publicDer}`]],
        [`_dmarc.${domain}`]: [[options.dmarc ?? 'v=DMARC1; p=reject']],
      },
    },
    async sign(raw) {
      const signing = {
        signingDomain: domain,
        selector,
        privateKey: privatePem,
        algorithm: 'rsa-sha256',
        canonicalization: 'relaxed/relaxed',
      };
      // signTime is not optional in practice: without it mailauth reads the clock twice, and a
      // second that turns between the two reads gives the header a t= it did not sign (1 in ~300).
      const { signatures } = await dkimSign(raw, { ...signing, signTime: new Date(), signatureData: [signing] });
      return Buffer.concat([Buffer.from(signatures), raw]);
    },
  };
}

/** A zone holding every domain's records. */
export function zoneOf(...inputs: DnsRecordsInput[]): DnsRecords {
  const zone = emptyDnsRecords();
  for (const input of inputs) {
    const problem = mergeDnsRecords(zone, input);
    if (problem) throw new Error(problem);
  }
  return zone;
}

/** A message as an outside client composes it; `headers` are written above the composed ones. */
export async function composeMail(mail: {
  from: string;
  to: string;
  subject: string;
  text?: string;
  headers?: string[];
}): Promise<Buffer> {
  const built = await new MailComposer({
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text ?? 'hello from outside\n',
  })
    .compile()
    .build();
  return Buffer.concat([Buffer.from((mail.headers ?? []).map((line) => `${line}\r\n`).join(''), 'latin1'), built]);
}

/** Sends `raw` over SMTP to the sandbox with this envelope and HELO name; resolves to the server's answer. */
export async function sendRaw(
  port: number,
  raw: Buffer,
  envelope: { from: string; to: string },
  helo = 'client.example.org',
): Promise<{ response: string }> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: helo });
  try {
    return await transport.sendMail({ envelope, raw });
  } finally {
    transport.close();
  }
}

/** The inbox's one-batch send (a draft in Drafts, then EmailSubmission/set) to `to`, with extra create properties. */
export async function sendFromInbox(
  apiUrl: string,
  inbox: TestInbox,
  to: string,
  subject: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const boxes = await jmap(apiUrl, inbox, [['Mailbox/get', { accountId: inbox.address, properties: ['role'] }, 'm']]);
  const drafts =
    (resultOf(boxes.body, 'm')['list'] as Array<{ id: string; role: string | null }>).find(
      (box) => box.role === 'drafts',
    )?.id ?? '';
  const draft = {
    mailboxIds: { [drafts]: true },
    from: [{ email: inbox.address }],
    to: [{ email: to }],
    subject,
    bodyValues: { b: { value: 'from an inbox' } },
    textBody: [{ partId: 'b', type: 'text/plain' }],
    ...extra,
  };
  const { body } = await jmap(apiUrl, inbox, [
    ['Email/set', { accountId: inbox.address, create: { d: draft } }, 'e'],
    [
      'EmailSubmission/set',
      { accountId: inbox.address, create: { s: { emailId: '#d', identityId: inbox.address } } },
      's',
    ],
  ]);
  if (!(resultOf(body, 's')['created'] as Record<string, unknown> | null)?.['s'])
    throw new Error(`the send failed: ${JSON.stringify(body)}`);
}

/** The JMAP API URL of the sandbox's session. */
export async function sessionApiUrl(apiUrl: string, inbox: TestInbox): Promise<string> {
  const session = (await (
    await fetch(`${apiUrl}/.well-known/jmap`, { headers: { authorization: `Bearer ${await inbox.capability()}` } })
  ).json()) as { apiUrl: string };
  return session.apiUrl;
}

/** The header fields of the inbox's message with `subject`, in order, values unfolded. */
export async function headersOf(
  apiUrl: string,
  inbox: TestInbox,
  subject: string,
): Promise<Array<{ name: string; value: string }>> {
  const endpoint = await sessionApiUrl(apiUrl, inbox);
  const boxes = await jmap(endpoint, inbox, [['Mailbox/get', { accountId: inbox.address, properties: ['role'] }, 'm']]);
  const inboxId = (resultOf(boxes.body, 'm')['list'] as Array<{ id: string; role: string | null }>).find(
    (box) => box.role === 'inbox',
  )?.id;
  const { body } = await jmap(endpoint, inbox, [
    ['Email/query', { accountId: inbox.address, filter: { inMailbox: inboxId } }, 'q'],
    [
      'Email/get',
      {
        accountId: inbox.address,
        '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
        properties: ['subject', 'headers'],
      },
      'g',
    ],
  ]);
  const found = (
    resultOf(body, 'g')['list'] as Array<{ subject: string; headers: Array<{ name: string; value: string }> }>
  ).find((email) => email.subject === subject);
  if (!found) throw new Error(`no message "${subject}" in ${inbox.address}`);
  return found.headers.map(({ name, value }) => ({ name, value: value.replace(/\r?\n/g, '').trim() }));
}

/** The values of the Authentication-Results fields, top first. */
export function authenticationResults(headers: Array<{ name: string; value: string }>): string[] {
  return headers
    .filter((header) => header.name.toLowerCase() === 'authentication-results')
    .map((header) => header.value);
}
