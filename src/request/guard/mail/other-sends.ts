import type { CheckContext } from '../../../gate/outgoing.js';
import { normaliseAddress, type NormalisedAddress } from '../../../policy/address-matcher.js';
import type { ScanPart } from '../../../policy/secret-scan.js';
import { hasResultReference, type OtherSend } from './batch-sends.js';
import { blobBytes } from './blob-lookup.js';
import { recipientsOfHeaderList } from './mail-recipients.js';
import { sieveActions } from './sieve-actions.js';
import { judgeSend, unreadableSend, type SendUnderJudgement } from '../send-judgement.js';
import type { GuardScope } from '../guard-scope.js';
import { isRecord } from '../../../is-record.js';

/**
 * Methods other than EmailSubmission/set that make mail leave: a vacation response (RFC 8621 §8), a read
 * receipt (RFC 9007), a Sieve script (RFC 9661), an identity's Bcc and Reply-To; unreadable ones marked.
 */

const core = ['urn:ietf:params:jmap:core'];
/** Where a read receipt goes (RFC 9007 §2.1). */
const notificationTo = 'header:Disposition-Notification-To:asRaw:all';

function textsOf(record: Readonly<Record<string, unknown>>, keys: readonly string[]): string {
  return keys.flatMap((key) => (typeof record[key] === 'string' ? [record[key]] : [])).join('\n');
}

/** The entries of a call's creation and update maps, in the order of `keys`. */
function entriesOf(args: Readonly<Record<string, unknown>>, ...keys: ('create' | 'update')[]): [string, unknown][] {
  return keys.flatMap((key) => Object.entries(isRecord(args[key]) ? args[key] : {}));
}

/** An enabled vacation response as a send: it answers whoever writes. */
export function vacationSend(vacation: Readonly<Record<string, unknown>>): SendUnderJudgement {
  return {
    label: 'the vacation response (an automatic reply to whoever writes)',
    kind: 'auto-reply',
    recipients: 'anyone',
    unreadable: [],
    scanParts: [{ where: 'the vacation response', text: textsOf(vacation, ['subject', 'textBody', 'htmlBody']) }],
    slots: 0,
  };
}

/** Whether the rules in force would refuse this vacation response as a send. */
export async function refusesAutoReply(
  vacation: Readonly<Record<string, unknown>>,
  scope: GuardScope,
): Promise<boolean> {
  const options = { layers: scope.layers, policy: scope.policy, isKnown: async () => false };
  return (await judgeSend(vacationSend(vacation), options)).kind !== 'allow';
}

/** The sends one such call makes; empty when it makes none (e.g. turning a vacation response off). */
export async function otherSendJudgements(
  send: OtherSend,
  context: CheckContext,
  batchUploads: ReadonlyMap<string, unknown>,
): Promise<SendUnderJudgement[]> {
  if (hasResultReference(send.args))
    return [unreadableSend(send.method, 'other', `${send.method} takes its arguments from a result reference`)];
  if (send.method === 'VacationResponse/set') return vacation(send.args, context);
  if (send.method === 'MDN/send') return receipts(send.args, context);
  if (send.method === 'Identity/set') return identityAddresses(send.args);
  return sieveScripts(send.args, context, batchUploads);
}

async function vacation(args: Readonly<Record<string, unknown>>, context: CheckContext): Promise<SendUnderJudgement[]> {
  const changes = entriesOf(args, 'update', 'create')
    .map(([, patch]) => patch)
    .filter(isRecord);
  if (changes.length === 0 || changes.every((patch) => patch.isEnabled === false)) return [];
  // The current response matters only where a change leaves isEnabled (or the texts) as they are.
  const needsCurrent = changes.some(
    (patch) => patch.isEnabled !== true || !('subject' in patch && 'textBody' in patch && 'htmlBody' in patch),
  );
  let before: Record<string, unknown> = {};
  if (needsCurrent) {
    const { accountId } = await context.session();
    const current = await context.read({
      using: [...core, 'urn:ietf:params:jmap:vacationresponse'],
      methodCalls: [['VacationResponse/get', { accountId, ids: null }, 'v']],
    });
    const list = current.methodResponses[0]?.[1].list;
    before = Array.isArray(list) && isRecord(list[0]) ? list[0] : {};
  }
  return changes.flatMap((patch) => {
    const after = { ...before, ...patch };
    return after.isEnabled === true ? [vacationSend(after)] : [];
  });
}

/** An identity's Bcc gets a copy of every mail sent with it, its Reply-To the answers (RFC 8621 §6.1): each a send there. */
function identityAddresses(args: Readonly<Record<string, unknown>>): SendUnderJudgement[] {
  const out: SendUnderJudgement[] = [];
  for (const [id, patch] of entriesOf(args, 'create', 'update')) {
    if (!isRecord(patch)) continue;
    const recipients: NormalisedAddress[] = [];
    const unreadable: string[] = [];
    for (const field of ['bcc', 'replyTo'] as const) {
      const value = patch[field];
      if (value === undefined || value === null) continue;
      if (!Array.isArray(value)) {
        unreadable.push(`the identity's ${field} is not a list of addresses`);
        continue;
      }
      for (const entry of value) {
        const address = isRecord(entry) && typeof entry.email === 'string' ? normaliseAddress(entry.email) : undefined;
        if (address) recipients.push(address);
        else unreadable.push(`an address of the identity's ${field} cannot be read`);
      }
    }
    if (recipients.length > 0 || unreadable.length > 0)
      out.push({
        label: `the identity ${id}'s Bcc and Reply-To (a copy of every mail sent with it, the answers to it)`,
        kind: 'other',
        recipients,
        unreadable,
        scanParts: [],
        slots: 0,
      });
  }
  return out;
}

async function receipts(args: Readonly<Record<string, unknown>>, context: CheckContext): Promise<SendUnderJudgement[]> {
  const sends = Object.entries(isRecord(args.send) ? args.send : {});
  const { accountId } = await context.session();
  const out: SendUnderJudgement[] = [];
  for (const [creationId, mdn] of sends) {
    const record = isRecord(mdn) ? mdn : {};
    const label = `the read receipt ${creationId}`;
    const forEmailId = record.forEmailId;
    if (typeof forEmailId !== 'string' || forEmailId.startsWith('#')) {
      out.push(unreadableSend(label, 'read receipt', 'its forEmailId is not an id of this inbox', 1));
      continue;
    }
    const properties = [notificationTo];
    const answer = await context.read({
      using: [...core, 'urn:ietf:params:jmap:mail'],
      methodCalls: [['Email/get', { accountId, ids: [forEmailId], properties }, 'm']],
    });
    const list = answer.methodResponses[0]?.[1].list;
    const values = Array.isArray(list) && isRecord(list[0]) ? list[0][notificationTo] : undefined;
    const found = recipientsOfHeaderList(
      Array.isArray(values) ? values.map((value) => ({ name: 'to', value })) : undefined,
    );
    const scanParts: ScanPart[] = [{ where: label, text: textsOf(record, ['subject', 'textBody', 'reportingUA']) }];
    out.push({
      label,
      kind: 'read receipt',
      recipients: found.addresses,
      unreadable: found.unreadable,
      scanParts,
      slots: 1,
    });
  }
  return out;
}

async function sieveScripts(
  args: Readonly<Record<string, unknown>>,
  context: CheckContext,
  batchUploads: ReadonlyMap<string, unknown>,
): Promise<SendUnderJudgement[]> {
  const out: SendUnderJudgement[] = [];
  for (const [id, script] of entriesOf(args, 'create', 'update')) {
    const blobId = isRecord(script) ? script.blobId : undefined;
    if (blobId === undefined) continue;
    const label = `the Sieve script ${id}`;
    if (typeof blobId !== 'string') {
      out.push(unreadableSend(label, 'sieve', 'its content is not a blob'));
      continue;
    }
    const text = Buffer.from(await blobBytes(context, blobId, batchUploads)).toString('utf8');
    const actions = sieveActions(text);
    const targets = actions.redirects.map((target) => ({ target, address: normaliseAddress(target) }));
    const unreadable = [
      ...(actions.unreadable ? [actions.unreadable] : []),
      ...targets.filter((t) => !t.address).map((t) => `redirect to "${t.target}"`),
    ];
    const recipients = targets.flatMap((t): NormalisedAddress[] => (t.address ? [t.address] : []));
    const scanParts = [{ where: label, text }];
    if (actions.answersAnyone.length > 0)
      out.push({
        label: `${label} (${actions.answersAnyone.join(', ')}: answers whoever writes)`,
        kind: 'auto-reply',
        recipients: 'anyone',
        unreadable,
        scanParts,
        slots: 0,
      });
    out.push({ label: `${label} (redirects)`, kind: 'sieve', recipients, unreadable, scanParts, slots: 0 });
  }
  return out;
}
