import type { CheckContext } from '../../../gate/outgoing.js';
import { normaliseAddress, type NormalisedAddress } from '../../../policy/address-matcher.js';
import { readAudit } from '../../../policy/records/audit-log.js';
import { readCreatedMail } from '../../../policy/records/created-mail.js';
import { judgeDomain } from '../../../trust/sender-authentication.js';
import { isRecord } from '../../../is-record.js';

/**
 * The `known` send mode's facts: an address is known when mail really went to it (the audit log, then
 * the service's EmailSubmission records), or mail from it passed DMARC in the service's topmost
 * Authentication-Results. A mailbox proves nothing: mail is filed unsent, and this tool's has the fields its writer chose.
 */

const lookLimit = 25;
const submissionLookLimit = 100;

/** Recipients the service's own submission records name (RFC 8621 §7): mail that really left, whoever sent it. */
async function submittedTo(address: NormalisedAddress, context: CheckContext): Promise<boolean> {
  const { accountId } = await context.session();
  const using = ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail', 'urn:ietf:params:jmap:submission'];
  const properties = ['envelope', 'undoStatus'];
  const sort = [{ property: 'sentAt', isAscending: false }];
  const ids = { resultOf: 'q', name: 'EmailSubmission/query', path: '/ids' };
  let answer = await context.read({
    using,
    methodCalls: [
      ['EmailSubmission/query', { accountId, sort, limit: submissionLookLimit }, 'q'],
      ['EmailSubmission/get', { accountId, '#ids': ids, properties }, 'g'],
    ],
  });
  // A server without the query method (it is optional in practice) is asked for all of them.
  if (answer.methodResponses[0]?.[0] === 'error')
    answer = await context.read({
      using,
      methodCalls: [['EmailSubmission/get', { accountId, ids: null, properties }, 'g']],
    });
  const list = answer.methodResponses.find(([name]) => name === 'EmailSubmission/get')?.[1].list;
  if (!Array.isArray(list)) return false;
  return list.some((submission) => {
    // A cancelled submission never left; a pending one may still be, so only a final one counts.
    if (!isRecord(submission) || submission.undoStatus !== 'final' || !isRecord(submission.envelope)) return false;
    return namesAddress(submission.envelope.rcptTo, address);
  });
}

async function sentBefore(address: NormalisedAddress, stateDir: string, context: CheckContext): Promise<boolean> {
  const audited = await readAudit(stateDir);
  const sent = audited.some(
    (entry) =>
      (entry.verdict === 'sent' || entry.verdict === 'approved') &&
      entry.recipients.some((r) => normaliseAddress(r)?.address === address.address),
  );
  return sent || submittedTo(address, context);
}

function namesAddress(list: unknown, address: NormalisedAddress): boolean {
  return (
    Array.isArray(list) &&
    list.some(
      (item) =>
        isRecord(item) && typeof item.email === 'string' && normaliseAddress(item.email)?.address === address.address,
    )
  );
}

async function wroteAuthenticated(
  address: NormalisedAddress,
  stateDir: string,
  authservId: string,
  context: CheckContext,
): Promise<boolean> {
  const { accountId } = await context.session();
  const created = await readCreatedMail(stateDir);
  const ids = { resultOf: 'q', name: 'Email/query', path: '/ids' };
  const properties = ['id', 'from', 'header:Authentication-Results:asText:all'];
  const answer = await context.read({
    using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
    methodCalls: [
      ['Email/query', { accountId, filter: { from: address.address }, limit: lookLimit }, 'q'],
      ['Email/get', { accountId, '#ids': ids, properties }, 'g'],
    ],
  });
  const list = answer.methodResponses.find(([name]) => name === 'Email/get')?.[1].list;
  if (!Array.isArray(list)) return false;
  return list.some((email) => {
    // Mail this tool wrote carries the fields its writer chose, and one without an id cannot be told apart from it.
    if (!isRecord(email) || typeof email.id !== 'string' || created.has(email.id)) return false;
    const from = Array.isArray(email.from) ? email.from : [];
    // One From, and it is this address: a list of several authors proves none of them.
    if (from.length !== 1 || !namesAddress(from, address)) return false;
    const fields = email['header:Authentication-Results:asText:all'];
    if (!Array.isArray(fields)) return false;
    // A DMARC pass for its domain in the service's topmost field: the sender verdict listings show.
    const strings = fields.filter((f): f is string => typeof f === 'string');
    return judgeDomain(strings, authservId, address.domain).authenticated;
  });
}

/** Whether `address` counts as known to this inbox (see above); each answer is one lookup per call. */
export async function isKnownRecipient(
  address: NormalisedAddress,
  options: { stateDir: string; authservId: string; context: CheckContext },
): Promise<boolean> {
  const { stateDir, authservId, context } = options;
  return (await sentBefore(address, stateDir, context)) || wroteAuthenticated(address, stateDir, authservId, context);
}
