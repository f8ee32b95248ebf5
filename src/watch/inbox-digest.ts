import { senderTrustOf } from '../present/assess-mail.js';
import { fenceUntrusted, newUntrustedMarker, untrustedNotice } from '../present/fence-untrusted.js';
import { trustFlags } from '../present/present-mail-views.js';
import type { NewMail } from './fetch-new-mail.js';

interface DigestInput {
  inbox?: string;
  mail: NewMail;
  generatedAt: Date;
  /** When the last successful wake ran; absent on the first run. */
  since?: string;
  /** Whose Authentication-Results count for the sender verdicts (the setting, else the inbox domain). */
  authservId: string;
}

/**
 * The digest the woken agent reads first: sender, subject and date, each sender's verdict as listings mark it.
 * Sender and subject are strangers', fenced with one per-digest random marker; the verdicts stand outside.
 */
export function renderInboxDigest(input: DigestInput, marker: string = newUntrustedMarker()): string {
  const { mail } = input;
  const window = input.since
    ? `since the last successful check (${input.since})`
    : mail.mode === 'changes'
      ? 'since the last successful check'
      : 'in the last 24 hours (first check)';
  const lines = [
    `# New mail${input.inbox ? ` for ${input.inbox}` : ''}`,
    '',
    `Written ${input.generatedAt.toISOString()} by \`agent-mailbox wake\`: ${mail.total} new message${mail.total === 1 ? '' : 's'} ${window}.`,
  ];
  if (mail.total === 0) return `${lines.join('\n')}\n`;
  lines.push('', untrustedNotice(marker));
  mail.items.forEach((item, index) => {
    // The automatic mark is ours, outside the fences: RFC 3834 says never to answer such mail automatically.
    const automatic = item.automatic ? ` — automatic mail (${item.automatic.split(':')[0]}): do not auto-reply` : '';
    const trust = trustFlags(
      senderTrustOf(item.senderFacts ?? {}, {
        authservId: input.authservId,
        ...(input.inbox ? { inbox: input.inbox } : {}),
        view: 'listing',
      }),
    );
    const verdict = trust.length > 0 ? ` — ${trust.join(' · ')}` : '';
    lines.push(
      '',
      `## ${index + 1}. received ${item.receivedAt || 'at an unknown time'} (id ${item.id})${automatic}${verdict}`,
      'From:',
      fenceUntrusted(item.from, marker),
      'Subject:',
      fenceUntrusted(item.subject, marker),
    );
  });
  if (mail.total > mail.items.length)
    lines.push('', `…and ${mail.total - mail.items.length} more; list them with jmap_request (preset list_new).`);
  return `${lines.join('\n')}\n`;
}
