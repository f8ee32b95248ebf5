import { normaliseAddress } from '../policy/address-matcher.js';
import { displayNameClaim } from '../trust/display-name-claim.js';
import {
  authenticateSender,
  cameInThrough,
  senderFactsOf,
  type SenderAuthentication,
} from '../trust/sender-authentication.js';
import type { HidingTechnique } from './hidden/hiding-technique.js';
import { BoundedLru } from '../remembered.js';
import { readMessageBody, type MessageBody } from './read-message-body.js';
import { shownName } from './shown-limits.js';
import type { Email } from './present-mail-views.js';

/**
 * What the reader is told about each message beside its content: the sender's authentication, a
 * display name claiming someone else, text a person would not see.
 */

/** The sender verdict: each method's result in a listing or thread, every result's properties reading one message. */
export type SenderTrust = Pick<SenderAuthentication, 'verdict' | 'authenticated' | 'dmarc' | 'reason'> &
  Partial<Pick<SenderAuthentication, 'authservId' | 'results'>> & { methods?: Record<string, string> };

export interface HiddenSummary {
  /** Characters a person does not see (page titles and HTML comments left out: every template has them). */
  chars: number;
  techniques: HidingTechnique[];
  /** Words the text/plain part says beyond what a person sees of the HTML, when it says substantially more. */
  plainExtraWords?: number;
  /** Styling the detector cannot assess: text reported visible may not be. */
  unassessed?: string[];
  /** Only the first part of a large HTML body was read (listing previews: previewHtmlBytes). */
  partial?: boolean;
}

export interface MailTrust {
  sender?: SenderTrust;
  /** The address or domain the display name shows, when it is not the sender's. */
  nameClaim?: string;
  hidden?: HiddenSummary;
  /** A listing's preview of HTML mail: the start of what a person sees, not the server's preview. */
  preview?: string;
  /** The operator's view (`--include-held`): the receive rules hold this message back from the agent. */
  held?: true;
}

/** A preview's length, as RFC 8621 §4.1.4 caps the server's. */
const previewChars = 256;

/** HTML read per listed message for its preview and hidden-text count. */
export const previewHtmlBytes = 64 * 1024;

export interface AssessOptions {
  authservId: string;
  /** This inbox's own address: its own writing gets no sender verdict. */
  inbox?: string;
  view: 'listing' | 'message' | 'thread';
  /** Listings: the HTML bodies of these messages, cut at previewHtmlBytes (fetched through the gate). */
  fetchHtml?: (ids: string[]) => Promise<Map<string, { html: string; isTruncated: boolean }>>;
  /** Message views: show the hidden text too (SHOW_HIDDEN). */
  showHidden?: boolean;
  /** The operator's view: ids the receive rules hold back from the agent. */
  held?: ReadonlySet<string>;
  /** Listings: what earlier reads of the same HTML found, kept by the caller (see previewFactsKey). */
  previews?: { cache: PreviewFactsStore; scope: string };
}

/** What reading a listed message's HTML found: facts about its bytes, never a verdict. */
export interface PreviewFacts {
  preview: string;
  hidden?: HiddenSummary;
}

/** Where a caller keeps PreviewFacts between calls. */
type PreviewFactsStore = Pick<BoundedLru<string, PreviewFacts>, 'get' | 'set'>;

/**
 * The process's listing previews: a long session lists the same mail again and again, and reading
 * its HTML was most of a listing's work. Facts about bytes, never verdicts, so a rule change drops
 * nothing. 2,000 previews of 256 characters: well under a megabyte.
 */
export const previewFactsCache = new BoundedLru<string, PreviewFacts>(2_000);

/** A message's preview-facts key: account, message and its HTML parts' blobs; none when a part names no blob. */
export function previewFactsKey(scope: string, email: Email): string | undefined {
  const parts = Array.isArray(email.htmlBody) ? (email.htmlBody as Email[]) : [];
  const blobIds = parts.filter((part) => part.type === 'text/html').map((part) => part.blobId);
  if (typeof email.id !== 'string' || blobIds.length === 0) return undefined;
  if (!blobIds.every((id) => typeof id === 'string' && id.length > 0)) return undefined;
  return JSON.stringify([scope, email.id, blobIds]);
}

function applyPreview(entry: MailTrust | undefined, facts: PreviewFacts): void {
  if (!entry) return;
  entry.preview = facts.preview;
  if (facts.hidden)
    entry.hidden = {
      ...facts.hidden,
      techniques: [...facts.hidden.techniques],
      ...(facts.hidden.unassessed ? { unassessed: [...facts.hidden.unassessed] } : {}),
    };
}

const bodies = new WeakMap<Email, MessageBody>();

/** The body text a message view shows, as assessMail prepared it (undefined: the plain text as it is). */
export function preparedBodyOf(email: Email): MessageBody | undefined {
  return bodies.get(email);
}

/** A copy keeps what the assessment prepared: without it the view would show the plain part, hidden text and all. */
export function withPreparedBody<T extends Email>(original: Email, copy: T): T {
  const body = bodies.get(original);
  if (body) bodies.set(copy, body);
  return copy;
}

export async function assessMail(emails: readonly Email[], options: AssessOptions): Promise<Record<string, MailTrust>> {
  const trust: Record<string, MailTrust> = {};
  for (const email of emails) {
    if (typeof email.id !== 'string') continue;
    const entry: MailTrust = { ...senderTrustOf(email, options) };
    if (options.held?.has(email.id)) entry.held = true;
    trust[email.id] = entry;
  }
  const withHtml = emails.filter((email) => typeof email.id === 'string' && htmlPartIds(email).length > 0);
  if (withHtml.length === 0) return dropEmpty(trust);
  if (options.view === 'listing') {
    const previews = options.previews;
    const keys = new Map<string, string>();
    const unread: string[] = [];
    for (const email of withHtml) {
      const id = email.id as string;
      const key = previews ? previewFactsKey(previews.scope, email) : undefined;
      const known = key === undefined ? undefined : previews?.cache.get(key);
      if (known) applyPreview(trust[id], known);
      else {
        if (key !== undefined) keys.set(id, key);
        unread.push(id);
      }
    }
    if (unread.length === 0) return dropEmpty(trust);
    const hidden = await import('./hidden/analyse-html.js');
    const fetched = (await options.fetchHtml?.(unread)) ?? new Map();
    await hidden.prepareHtmlVisibility([...fetched.values()].map((f) => f.html));
    for (const [id, { html, isTruncated }] of fetched) {
      const seen = hidden.analyseHtml(html, { maxBytes: previewHtmlBytes });
      const summary = hiddenSummary(seen.charsByTechnique, isTruncated || seen.truncated, undefined, seen.unassessed);
      const facts: PreviewFacts = {
        preview: [...seen.visibleText.replace(/\s+/g, ' ').trim()].slice(0, previewChars).join(''),
        ...(summary ? { hidden: summary } : {}),
      };
      const key = keys.get(id);
      if (key !== undefined) previews?.cache.set(key, facts);
      applyPreview(trust[id], facts);
    }
  } else {
    const hidden = await import('./hidden/analyse-html.js');
    const { comparePlainToVisible } = await import('./hidden/compare-plain-to-visible.js');
    for (const email of withHtml) {
      const body = await readMessageBody(email, {
        analyse: hidden,
        comparePlainToVisible,
        prepare: hidden.prepareHtmlVisibility,
        showHidden: options.showHidden === true,
      });
      bodies.set(email, body);
      const summary = hiddenSummary(body.charsByTechnique, false, body.plainExtraWords, body.unassessed);
      const entry = trust[email.id as string];
      if (summary && entry) entry.hidden = summary;
    }
  }
  return dropEmpty(trust);
}

/** The partIds of a message's HTML parts (htmlBody entries of type text/html). */
export function htmlPartIds(email: Email): string[] {
  const parts = Array.isArray(email.htmlBody) ? (email.htmlBody as Email[]) : [];
  return parts.flatMap((part) => (part.type === 'text/html' && typeof part.partId === 'string' ? [part.partId] : []));
}

/** The sender verdict and display-name claim of one message, as listings show them (the wake digest shows the same). */
export function senderTrustOf(
  email: Email,
  options: Pick<AssessOptions, 'authservId' | 'inbox' | 'view'>,
): Pick<MailTrust, 'sender' | 'nameClaim'> {
  const facts = senderFactsOf(email);
  const from = Array.isArray(email.from) ? (email.from as Email[]) : [];
  const single = from.length === 1 && typeof from[0]?.email === 'string' ? normaliseAddress(from[0].email) : undefined;
  const out: Pick<MailTrust, 'sender' | 'nameClaim'> = {};
  // Judged on the name as shown: a claim past what the reader sees is not made to the reader, and the check's cost stays bounded.
  const claim = single
    ? displayNameClaim(typeof from[0]?.name === 'string' ? shownName(from[0].name) : undefined, single)
    : undefined;
  if (claim) out.nameClaim = claim;
  if (!facts) return out;
  const own =
    single !== undefined && options.inbox !== undefined && single.address === normaliseAddress(options.inbox)?.address;
  // The inbox's own drafts and sent copies never came in: there is nothing to verify.
  if (own && !cameInThrough(facts, options.authservId)) return out;
  const { verdict, authenticated, authservId, dmarc, reason, results } = authenticateSender(facts, options.authservId);
  out.sender = { verdict, authenticated, ...(dmarc ? { dmarc } : {}), ...(reason ? { reason } : {}) };
  // A listing of fifty, or a long thread, keeps its structured result small: each method's result, not every property.
  if (results && options.view !== 'message')
    out.sender.methods = Object.fromEntries(results.map((r) => [r.method, r.result]));
  else if (results) Object.assign(out.sender, { authservId, results });
  return out;
}

function hiddenSummary(
  chars: Partial<Record<HidingTechnique, number>>,
  partial: boolean,
  plainExtraWords?: number,
  unassessed: readonly string[] = [],
): HiddenSummary | undefined {
  const counted = Object.entries(chars).filter(
    ([technique, n]) => technique !== 'title' && technique !== 'comment' && (n ?? 0) > 0,
  ) as [HidingTechnique, number][];
  const total = counted.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0 && !plainExtraWords && unassessed.length === 0) return undefined;
  return {
    chars: total,
    techniques: counted.sort((a, b) => b[1] - a[1]).map(([technique]) => technique),
    ...(plainExtraWords ? { plainExtraWords } : {}),
    ...(unassessed.length > 0 ? { unassessed: [...unassessed] } : {}),
    ...(partial ? { partial: true } : {}),
  };
}

function dropEmpty(trust: Record<string, MailTrust>): Record<string, MailTrust> {
  return Object.fromEntries(Object.entries(trust).filter(([, entry]) => Object.keys(entry).length > 0));
}
