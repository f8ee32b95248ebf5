import { automaticReason } from '../mail/automatic-mail.js';
import { preparedBodyOf, type MailTrust } from './assess-mail.js';
import { fenceUntrusted } from './fence-untrusted.js';
import { clip, shownLimits, shownName } from './shown-limits.js';
import { trimQuotedHistory, windowOf } from './mail-text.js';

/** The mail-client views: what a stranger wrote sits in one fence per message; the server's facts outside. */

export type Email = Record<string, unknown>;

const previewChars = 110;

/** One listed message: a line of facts, then sender, subject and a one-line preview, fenced. */
export function listingEntry(email: Email, index: number, marker: string, trust?: MailTrust): string {
  const facts = factsLine([`${index}. ${str(email.id)}`], email, trust);
  // HTML mail is previewed from what a person sees of it, not from the server's preview (which carries hidden text).
  const preview = str(trust?.preview ?? email.preview)
    .replace(/\s+/g, ' ')
    .trim();
  const lines = [`From: ${addresses(email.from, shownLimits.listingAddresses)}`];
  // Mail one sent (list_sent asks for `to`): whom it went to is what tells the entries apart.
  if (Array.isArray(email.to) && email.to.length > 0)
    lines.push(`To: ${addresses(email.to, shownLimits.listingAddresses)}`);
  lines.push(`Subject: ${clip(str(email.subject), shownLimits.listingSubjectChars)}`);
  if (preview)
    lines.push(
      `Preview: ${preview.length > previewChars ? `${[...preview].slice(0, previewChars).join('')}…` : preview}`,
    );
  return `${facts}\n${fenceUntrusted(lines.join('\n'), marker)}`;
}

/** A whole message: facts, then headers, body (quoted history folded) and attachments, fenced. */
export function messageEntry(
  email: Email,
  marker: string,
  window: { offset: number; maxChars: number },
  label = '',
  trust?: MailTrust,
): { text: string; rest: number } {
  const facts = factsLine(
    [`${label}${str(email.id)}`, email.threadId ? `thread ${str(email.threadId)}` : ''],
    email,
    trust,
  );
  const headers = [`From: ${addresses(email.from, shownLimits.messageAddresses)}`];
  for (const [key, name] of Object.entries({ to: 'To', cc: 'Cc', replyTo: 'Reply-To' })) {
    if (Array.isArray(email[key]) && (email[key] as unknown[]).length > 0)
      headers.push(`${name}: ${addresses(email[key], shownLimits.messageAddresses)}`);
  }
  if (typeof email.sentAt === 'string') headers.push(`Date: ${email.sentAt}`);
  headers.push(`Subject: ${str(email.subject)}`);

  const { text: body, trimmedLines, fromHtml } = preparedBodyOf(email) ?? bodyOf(email);
  const shown = windowOf(body, window.offset, window.maxChars);
  const parts = [headers.join('\n'), '', shown.text || (window.offset > 0 ? '(no more text)' : '(no text body)')];
  if (trimmedLines > 0) parts.push(`[${trimmedLines} lines of quoted earlier messages folded]`);
  const files = attachmentsOf(email);
  if (files.length > 0)
    parts.push(
      '',
      'Attachments:',
      ...files.map((f, i) => `[${i + 1}] ${f.name || '(no name)'} · ${f.type} · ${kib(f.size)}`),
    );
  const notes: string[] = [];
  if (fromHtml) notes.push('(HTML-only message, shown as text.)');
  if (
    email.bodyValues &&
    Object.values(email.bodyValues as Record<string, { isTruncated?: boolean }>).some((v) => v.isTruncated)
  )
    notes.push('(The server cut the body at MAX_BODY_BYTES.)');
  return { text: [facts, fenceUntrusted(parts.join('\n'), marker), ...notes].join('\n'), rest: shown.rest };
}

/** The server's facts about a message, outside the fence: `head`, its date, flags and trust marks. */
function factsLine(head: string[], email: Email, trust: MailTrust | undefined): string {
  return [...head, shortDate(email.receivedAt), ...flagsOf(email), ...trustFlags(trust)].filter(Boolean).join(' · ');
}

/** The download call for each attachment, with exact values (the saving code reduces the name to a safe base name). */
export function attachmentsOf(email: Email): { name: string; type: string; size: number; blobId: string }[] {
  if (!Array.isArray(email.attachments)) return [];
  return (email.attachments as Email[])
    .filter((part) => typeof part.blobId === 'string')
    .map((part) => ({
      name: str(part.name),
      type: str(part.type) || 'application/octet-stream',
      size: typeof part.size === 'number' ? part.size : 0,
      blobId: part.blobId as string,
    }));
}

/** Facts about a message that come from the server (keywords) or mark it automatic (RFC 3834). */
export function flagsOf(email: Email): string[] {
  const keywords = (email.keywords ?? {}) as Record<string, unknown>;
  const flags: string[] = [];
  if (email.keywords && keywords.$seen !== true) flags.push('unread');
  for (const keyword of ['flagged', 'answered', 'draft']) if (keywords[`$${keyword}`] === true) flags.push(keyword);
  if (email.hasAttachment === true) flags.push('attachment');
  if (automaticReason(email)) flags.push('automatic: do not auto-reply');
  return flags;
}

/** Marks from the sender checks and the hidden-text detector, outside the fence: amounts, not alarm words. */
export function trustFlags(trust: MailTrust | undefined): string[] {
  if (!trust) return [];
  const flags: string[] = [];
  if (trust.held) flags.push('held from the agent by the receive rules');
  const sender = trust.sender;
  if (sender && !sender.authenticated)
    flags.push(
      `from unverified: ${sender.dmarc ? `dmarc=${sender.dmarc}` : sender.verdict === 'no-result' ? 'no dmarc result' : (sender.reason ?? 'unknown')}`,
    );
  if (trust.nameClaim) flags.push(`name shows ${trust.nameClaim}`);
  const hidden = trust.hidden;
  if (hidden && hidden.chars > 0) flags.push(`hidden text: ${hidden.chars}${hidden.partial ? '+' : ''} chars`);
  if (hidden?.plainExtraWords) flags.push(`text part differs from the HTML in ${hidden.plainExtraWords} words`);
  if (hidden?.unassessed?.length) flags.push(`styling this tool cannot assess: ${hidden.unassessed.join(', ')}`);
  return flags;
}

function bodyOf(email: Email): { text: string; trimmedLines: number; fromHtml: boolean } {
  const parts = Array.isArray(email.textBody) ? (email.textBody as Email[]) : [];
  const values = (email.bodyValues ?? {}) as Record<string, { value?: unknown }>;
  let trimmedLines = 0;
  let fromHtml = false;
  const texts = parts.map((part) => {
    const value = typeof part.partId === 'string' ? values[part.partId]?.value : undefined;
    if (typeof value !== 'string') return '';
    if (part.type === 'text/html') {
      fromHtml = true;
      // The assessment did not read this HTML as a person sees it: converted here, its hidden text would show unmarked.
      return '(The HTML part is not shown: this tool could not read it as a person sees it. Read the message again.)';
    }
    const trimmed = trimQuotedHistory(value);
    trimmedLines += trimmed.trimmedLines;
    return trimmed.text;
  });
  return { text: texts.filter(Boolean).join('\n\n').trim(), trimmedLines, fromHtml };
}

function addresses(value: unknown, most: number): string {
  if (!Array.isArray(value) || value.length === 0) return '(none)';
  const shown = (value as Email[]).slice(0, most).map((a) => {
    const email = clip(str(a.email), shownLimits.addressChars);
    return a.name ? `${shownName(a.name)} <${email}>` : email;
  });
  return `${shown.join(', ')}${value.length > most ? `, and ${value.length - most} more` : ''}`;
}

/** 2026-11-23T10:00:00Z → 2026-11-23 10:00Z: minutes are enough to tell mail apart. */
export function shortDate(value: unknown): string {
  return typeof value === 'string' ? value.replace(/^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)(:\d\d(\.\d+)?)?/, '$1 $2') : '';
}

function kib(size: number): string {
  return size < 1024 ? `${size} B` : `${Math.round(size / 1024)} KB`;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}
