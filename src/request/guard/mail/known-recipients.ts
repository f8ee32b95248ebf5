import type { CheckContext } from '../../../gate/outgoing.js';
import { normaliseAddress, type NormalisedAddress } from '../../../policy/address-matcher.js';
import { readAudit } from '../../../policy/records/audit-log.js';
import { judgeDomain } from '../../../trust/sender-authentication.js';

/**
 * The `known` send mode's facts: an address is known when this inbox has sent mail to it (the
 * audit log's sent and approved entries, then the Sent mailbox), or when mail from it passed
 * sender authentication for its From domain: DMARC pass in the topmost Authentication-Results
 * field of the service's own authserv-id (RFC 8601; the service removes forged ones). Writing
 * first from an unauthenticated address never makes a sender known.
 */

const lookLimit = 25;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether the Authentication-Results fields (topmost first) of `authservId` record a DMARC pass for `domain`: the sender verdict listings show. */
export function passedDmarcFor(fields: readonly string[], authservId: string, domain: string): boolean {
  return judgeDomain(fields, authservId, domain).authenticated;
}

async function sentBefore(address: NormalisedAddress, stateDir: string, context: CheckContext): Promise<boolean> {
  const audited = await readAudit(stateDir);
  if (audited.some((entry) => (entry.verdict === 'sent' || entry.verdict === 'approved') && entry.recipients.some((r) => normaliseAddress(r)?.address === address.address))) return true;
  const session = await context.session();
  const sent = session.mailboxIdsByRole.sent;
  if (!sent) return false;
  const answer = await context.read({
    using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
    methodCalls: [
      ['Email/query', { accountId: session.accountId, filter: { operator: 'AND', conditions: [{ inMailbox: sent }, { operator: 'OR', conditions: [{ to: address.address }, { cc: address.address }, { bcc: address.address }] }] }, limit: lookLimit }, 'q'],
      ['Email/get', { accountId: session.accountId, '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' }, properties: ['to', 'cc', 'bcc'] }, 'g'],
    ],
  });
  const list = answer.methodResponses.find(([name]) => name === 'Email/get')?.[1].list;
  return Array.isArray(list) && list.some((email) => isRecord(email) && ['to', 'cc', 'bcc'].some((field) => namesAddress(email[field], address)));
}

function namesAddress(list: unknown, address: NormalisedAddress): boolean {
  return Array.isArray(list) && list.some((item) => isRecord(item) && typeof item.email === 'string' && normaliseAddress(item.email)?.address === address.address);
}

async function wroteAuthenticated(address: NormalisedAddress, authservId: string, context: CheckContext): Promise<boolean> {
  const session = await context.session();
  const answer = await context.read({
    using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
    methodCalls: [
      ['Email/query', { accountId: session.accountId, filter: { from: address.address }, limit: lookLimit }, 'q'],
      ['Email/get', { accountId: session.accountId, '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' }, properties: ['from', 'header:Authentication-Results:asText:all'] }, 'g'],
    ],
  });
  const list = answer.methodResponses.find(([name]) => name === 'Email/get')?.[1].list;
  if (!Array.isArray(list)) return false;
  return list.some((email) => {
    if (!isRecord(email)) return false;
    const from = Array.isArray(email.from) ? email.from : [];
    // One From, and it is this address: a list of several authors proves none of them.
    if (from.length !== 1 || !namesAddress(from, address)) return false;
    const fields = email['header:Authentication-Results:asText:all'];
    return Array.isArray(fields) && passedDmarcFor(fields.filter((f): f is string => typeof f === 'string'), authservId, address.domain);
  });
}

/** Whether `address` counts as known to this inbox (see above); each answer is one lookup per call. */
export async function isKnownRecipient(address: NormalisedAddress, options: { stateDir: string; authservId: string; context: CheckContext }): Promise<boolean> {
  if (await sentBefore(address, options.stateDir, options.context)) return true;
  return wroteAuthenticated(address, options.authservId, options.context);
}

