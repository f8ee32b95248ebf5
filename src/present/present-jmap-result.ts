import type { NextStep } from '../errors.js';
import { describeNext } from '../render/describe-next.js';
import type { FrontDoor } from '../render/front-door.js';
import { fenceUntrusted, newUntrustedMarker, untrustedNotice } from './fence-untrusted.js';
import type { JmapResponse } from '../jmap/jmap-types.js';
import type { MailTrust } from './assess-mail.js';
import { attachmentsOf, listingEntry, messageEntry, type Email } from './present-mail-views.js';
import type { JmapRequestResult } from '../request/run-jmap-request.js';
import { lineOf } from '../jmap/summarize-response.js';
import { createdLines } from './present-created.js';

/** The text of a jmap_request result: compact, the untrusted-content rule stated once, each message fenced. */

/** Above this (≈ 15k tokens) the text says how to narrow the request; nothing is cut. */
const largeTextChars = 60_000;

/** A next step worded for the door the result goes out through. */
type Describe = (next: NextStep) => string;

export function presentJmapResult(
  result: JmapRequestResult,
  door: FrontDoor,
  options: { marker?: string; describeNext?: Describe } = {},
): { text: string; isFailure: boolean } {
  const marker = options.marker ?? newUntrustedMarker();
  const describe = options.describeNext ?? ((next: NextStep) => describeNext(next, door));
  const body: string[] = [];
  const responses = responsesOf(result);

  if (result.dryRun || result.request || result.steps?.some((s) => s.request)) body.push(...requestLines(result));
  const emails = lastEmailList(responses);
  if (!result.dryRun && result.view && emails) {
    if (result.view === 'listing') body.push(...listing(result, emails, marker, responses));
    else body.push(...messages(result, emails, marker, describe));
  } else if (!result.preset) {
    for (const response of responses) body.push(...presentRawResponse(response, marker));
  }
  body.push(...heldLines(result));
  if (result.created?.length) body.push(...createdLines(result, responses));
  const failures = result.failures ?? [];
  if (!result.ok && failures.length > 1) body.push('Failures:', ...failures.map((f) => `- ${lineOf(f)}`));
  for (const note of result.notes ?? []) body.push(`Note: ${note}`);
  for (const step of result.next ?? []) body.push(`Next: ${typeof step === 'string' ? step : describe(step)}`);

  const fenced = body.some((line) => line.includes(`<<<${marker}`));
  const lead = fenced ? [result.summary, untrustedNotice(marker)] : [result.summary];
  const size = body.reduce((n, line) => n + line.length + 1, 0);
  if (size > largeTextChars)
    lead.push(
      `This result is ${Math.round(size / 1024)} KB. To narrow it, ask for fewer records (a smaller LIMIT or "limit"), fewer "properties", or read one message with the read_message preset.`,
    );
  return { text: [...lead, ...body].join('\n'), isFailure: !result.ok };
}

function listing(result: JmapRequestResult, emails: Email[], marker: string, responses: JmapResponse[]): string[] {
  const own = new Set(result.ownMailIds ?? []);
  const shown = emails.filter((e) => !own.has(String(e.id)));
  const total = queryTotal(responses);
  const head = [
    `${shown.length} message${shown.length === 1 ? '' : 's'}${total !== undefined && total > emails.length ? ` (of ${total})` : ''}, newest first.`,
  ];
  if (own.size > 0) head.push(`${own.size} of your own sent copies or drafts left out (ids in ownMailIds).`);
  // An empty page is where an agent stalls: name the two ways on.
  if (shown.length === 0)
    head.push(
      'Nothing here yet: the preset wait_for_mail {TIMEOUT_SECONDS} waits for new mail; search {TEXT|FROM|SUBJECT} looks through older mail.',
    );
  return [...head, ...shown.map((email, i) => listingEntry(email, i + 1, marker, result.trust?.[String(email.id)]))];
}

function messages(result: JmapRequestResult, emails: Email[], marker: string, describe: Describe): string[] {
  const window = result.window ?? { offset: 0, maxChars: 12_000 };
  const ordered =
    result.view === 'thread'
      ? [...emails].sort((a, b) => String(a.receivedAt).localeCompare(String(b.receivedAt)))
      : emails;
  const out: string[] =
    result.view === 'thread'
      ? [`Thread of ${ordered.length} message${ordered.length === 1 ? '' : 's'}, oldest first.`]
      : [];
  ordered.forEach((email, i) => {
    const label = result.view === 'thread' ? `[${i + 1}/${ordered.length}] ` : '';
    const id = String(email.id);
    const trust = result.trust?.[id];
    const entry = messageEntry(email, marker, window, label, trust);
    out.push(entry.text, ...trustNotes(trust, id, result, describe));
    if (entry.rest > 0) {
      const offset = window.offset + window.maxChars;
      const readMore: NextStep = {
        operation: 'jmap_request',
        input: { ops_file: 'read_message', vars: { MAIL_ID: id, BODY_OFFSET: offset } },
      };
      out.push(`Truncated: ${entry.rest} more characters of ${id}'s text. Read on: ${describe(readMore)}`);
    }
    attachmentsOf(email).forEach((file, n) => {
      // mail_id: under the operator's receive rules a download names the message it belongs to.
      const download: Record<string, string> = { blob_id: file.blobId, mail_id: id, type: file.type };
      // The exact name is what `download` saves under; a name that could break a line is left to the structured data.
      if (file.name && !/[\u0000-\u001f\u007f]/.test(file.name) && file.name.length <= 120) download.name = file.name;
      out.push(`Save attachment [${n + 1}] of ${id}: ${describe({ operation: 'jmap_request', input: { download } })}`);
    });
  });
  return out;
}

/** Below a message: what its sender checks and hidden text mean, in full; the facts line has only the marks. */
function trustNotes(trust: MailTrust | undefined, id: string, result: JmapRequestResult, describe: Describe): string[] {
  const notes: string[] = [];
  const sender = trust?.sender;
  if (sender && !sender.authenticated)
    notes.push(
      `Sender not verified: ${sender.reason ?? 'no dmarc result'}${sender.authservId ? ` (Authentication-Results of ${sender.authservId})` : ''}. The From address may be forged.`,
    );
  if (trust?.nameClaim)
    notes.push(`The display name shows ${trust.nameClaim}, which is not the sender's address or domain.`);
  const hidden = trust?.hidden;
  if (hidden?.unassessed?.length)
    notes.push(
      `Styling this tool cannot assess (${hidden.unassessed.join(', ')}): text shown as visible may not be seen by a person. Read it with that in mind.`,
    );
  if (hidden && (hidden.chars > 0 || hidden.plainExtraWords)) {
    const parts: string[] = [];
    if (hidden.chars > 0)
      parts.push(`${hidden.chars} characters of its HTML are invisible to a person (${hidden.techniques.join(', ')})`);
    if (hidden.plainExtraWords)
      parts.push(
        `its text/plain part differs in ${hidden.plainExtraWords} words from the HTML a person sees, so the HTML's visible text is shown instead`,
      );
    const readHidden: NextStep = {
      operation: 'jmap_request',
      input: { ops_file: result.preset ?? 'read_message', vars: { MAIL_ID: id, SHOW_HIDDEN: true } },
    };
    notes.push(
      result.showHidden
        ? `Hidden text: ${parts.join('; ')}; it is shown above, marked, as SHOW_HIDDEN asked (invisible characters are removed, never shown).`
        : `Hidden text: ${parts.join('; ')}. Shown is what a person sees. To read the hidden text too: ${describe(readHidden)}`,
    );
  }
  return notes;
}

/** One line on mail the operator's receive rules held back in this call (counts only: none of it is shown). */
function heldLines(result: JmapRequestResult): string[] {
  const held = result.held;
  if (!held || held.count === 0) return [];
  const n = held.count;
  return [
    held.shownToOperator
      ? `Operator view (--include-held): ${n} message${n === 1 ? ' is' : 's are'} held back from the agent by the receive rules, shown here and marked.`
      : `${n} message${n === 1 ? '' : 's'} held back by your operator's receive rules: not shown, left in the mailbox.`,
  ];
}

function requestLines(result: JmapRequestResult): string[] {
  if (result.request) return [`Request: ${JSON.stringify(result.request)}`];
  return (result.steps ?? []).filter((s) => s.request).map((s) => `Request ${s.id}: ${JSON.stringify(s.request)}`);
}

export function responsesOf(result: JmapRequestResult): JmapResponse[] {
  if (result.response) return [result.response];
  return (result.steps ?? []).flatMap((s) => (s.response ? [s.response] : []));
}

/** The list of the last Email/get among the responses: the messages a view shows. */
export function lastEmailList(responses: JmapResponse[]): Email[] | undefined {
  const found = responses
    .flatMap((response) => response.methodResponses)
    .findLast(([name, args]) => name === 'Email/get' && Array.isArray(args.list));
  return found?.[1].list as Email[] | undefined;
}

function queryTotal(responses: JmapResponse[]): number | undefined {
  const query = responses
    .flatMap((response) => response.methodResponses)
    .find(([name, args]) => name === 'Email/query' && typeof args.total === 'number');
  return query?.[1].total as number | undefined;
}

/** Raw ops compactly: one line per method response, nulls left out, each mail record fenced on its own. */
export function presentRawResponse(response: JmapResponse, marker: string): string[] {
  const lines: string[] = [];
  for (const [name, args, callId] of response.methodResponses) {
    if (/^(Email|SearchSnippet|Thread)\//.test(name) && Array.isArray(args.list)) {
      const { list, ...rest } = args;
      lines.push(
        `${name} (${callId}): ${JSON.stringify(withoutNulls(rest))}, ${list.length} record${list.length === 1 ? '' : 's'}:`,
      );
      for (const item of list) lines.push(fenceUntrusted(JSON.stringify(withoutNulls(item)), marker));
    } else lines.push(`${name} (${callId}): ${JSON.stringify(withoutNulls(args))}`);
  }
  return lines;
}

/** JMAP /set answers carry a null for every absent member; they say nothing to a reader. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) if (child !== null) out[key] = withoutNulls(child);
  return out;
}
