import type { NormalisedAddress } from '../../policy/address-matcher.js';
import type { EffectivePolicy } from '../../policy/effective-policy.js';
import { judgeRecipient, type DecidingRule } from '../../policy/judge-address.js';
import type { LoadedLayer } from '../../policy/policy-layers.js';
import { scanForSecrets, type ScanPart } from '../../policy/secret-scan.js';
import type { PlannedSubmission } from './mail/batch-sends.js';
import { policyRefusal, ruleName } from './guard-refusal.js';
import type { MailboxError } from '../../errors.js';
import type { OutgoingMail } from './mail/outgoing-mail.js';

/** One send as the guard judges it: every recipient under every layer (strictest wins), the cap, the scan; unreadable: refused. */

export interface SendUnderJudgement {
  label: string;
  kind: 'mail' | 'auto-reply' | 'read receipt' | 'sieve' | 'other';
  /** Who receives it; `anyone` for answers to whoever writes. */
  recipients: NormalisedAddress[] | 'anyone';
  /** What cannot be read before the batch runs (a result reference, an unknown header form). */
  unreadable: string[];
  scanParts: ScanPart[];
  /** Sends it counts against the caps. */
  slots: number;
  submission?: PlannedSubmission;
  mail?: OutgoingMail;
}

export type Verdict =
  | { kind: 'allow'; rule: string }
  | { kind: 'confirm'; rule: DecidingRule; recipients: string[] }
  | { kind: 'refuse'; error: MailboxError; rule: string };

export interface JudgeOptions {
  layers: readonly LoadedLayer[];
  policy: EffectivePolicy;
  /** Whether an address is known to this inbox (looked up only in `known` mode, when it decides). */
  isKnown: (address: NormalisedAddress) => Promise<boolean>;
  /** The operator approved this very send at a terminal: the modes step aside, block-lists, caps and the scan do not. */
  approved?: boolean;
}

/** A send whose content or recipients cannot be read before the batch runs. */
export function unreadableSend(
  label: string,
  kind: SendUnderJudgement['kind'],
  why: string,
  slots = 0,
): SendUnderJudgement {
  return { label, kind, recipients: [], unreadable: [why], scanParts: [], slots };
}

/** The recipients as the audit log names them, `*` for anyone who writes. */
export function recipientsOf(send: SendUnderJudgement): string[] {
  return send.recipients === 'anyone' ? ['*'] : send.recipients.map((r) => r.address);
}

/** What an audit entry says of a send: its recipients, and its subject when it is a mail. */
export function auditedSend(send: SendUnderJudgement): { recipients: string[]; subject?: string } {
  return { recipients: recipientsOf(send), ...(send.mail ? { subject: send.mail.subject } : {}) };
}

function refuse(
  reason: string,
  rule: DecidingRule,
  send: SendUnderJudgement,
  extra: Record<string, unknown> = {},
): Verdict {
  return { kind: 'refuse', error: policyRefusal(reason, rule, { send: send.label, ...extra }), rule: ruleName(rule) };
}

export async function judgeSend(send: SendUnderJudgement, options: JudgeOptions): Promise<Verdict> {
  const { layers, policy } = options;
  if (send.unreadable.length > 0) {
    return refuse(
      `${send.label} cannot be checked against your operator's rules before it runs (${send.unreadable.join('; ')})`,
      { layer: 'default', rule: 'unjudgeable' },
      send,
    );
  }
  let verdict: Verdict = { kind: 'allow', rule: 'default: send.mode=open' };
  if (send.recipients === 'anyone') {
    const mode = policy.send.modes[0];
    const block = policy.send.block[0];
    if (mode)
      return refuse(
        `${send.label} would go to anyone who writes, and your operator's policy lets mail go only where its ${mode.value} rule says`,
        { layer: mode.from, rule: `send.mode=${mode.value}` },
        send,
      );
    if (block)
      return refuse(
        `${send.label} would go to anyone who writes, blocked addresses included`,
        { layer: block.from, rule: 'send.block', entry: block.entry },
        send,
      );
  } else {
    const max = policy.send.maxRecipients;
    if (max && send.recipients.length > max.value) {
      return refuse(
        `${send.label} has ${send.recipients.length} recipients; your operator's policy allows at most ${max.value} per mail`,
        { layer: max.from, rule: 'send.maxRecipients' },
        send,
      );
    }
    const needYes: string[] = [];
    let confirmRule: DecidingRule | undefined;
    for (const address of send.recipients) {
      let judged = judgeRecipient(layers, address, { isKnown: false });
      if (judged.verdict === 'refuse' && judged.rule.rule === 'send.mode=known' && (await options.isKnown(address)))
        judged = judgeRecipient(layers, address, { isKnown: true });
      if (options.approved && judged.verdict !== 'allow' && judged.rule.rule.startsWith('send.mode=')) continue;
      if (judged.verdict === 'refuse') {
        const reason =
          judged.rule.rule === 'send.block'
            ? `${address.address} is on your operator's block-list`
            : `your operator's policy does not allow mail to ${address.address}`;
        return refuse(reason, judged.rule, send, { recipient: address.address });
      }
      if (judged.verdict === 'confirm') {
        needYes.push(address.address);
        confirmRule ??= judged.rule;
      }
    }
    if (confirmRule) verdict = { kind: 'confirm', rule: confirmRule, recipients: needYes };
  }
  if (policy.send.secretScan.value === 'on') {
    const findings = await scanForSecrets(send.scanParts);
    const first = findings[0];
    if (first) {
      const found = findings.map((f) => `${f.kind} in ${f.where}`).join('; ');
      return refuse(
        `${send.label} carries what looks like a secret (${found})`,
        { layer: policy.send.secretScan.from, rule: 'send.secretScan' },
        send,
        { findings },
      );
    }
  }
  return verdict;
}
