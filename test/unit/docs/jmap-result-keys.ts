import type { JmapRequestResult } from '../../../src/request/jmap-request-types.js';

/**
 * The keys of jmap_request's exact result, each with when it is there and what it holds. The type
 * makes the list complete; the docs' and the skill's jmap topic's blocks are generated from it, and
 * like doc-tables.ts it ships nowhere.
 */
export const jmapResultKeys: { readonly [K in keyof Required<JmapRequestResult> | 'saved']: string } = {
  ok: 'always: false when any call or record failed (the CLI then exits 1).',
  summary: 'always: one line saying what happened in every step, or every failure with its fix.',
  dryRun: 'always: true when nothing was sent (`dry_run`).',
  preset: 'with `ops_file` naming a preset: its name.',
  view: 'with a preset that has one: how the text shows it (`listing`, `message`, `thread`).',
  request: 'only with `dry_run` or `echo_request` (one step): the request after substitution.',
  response:
    "when one step ran: the JMAP response, unchanged but for mail the operator's receive rules hold back, which is taken out.",
  failures:
    "with `ops` or a preset: each failed call or record with its method, error type, the server's words and a fix (empty when `ok`).",
  next: 'when there is a next step: sentences, or calls of a tool with their input.',
  steps: 'when a preset ran several steps: each with its id, summary and response (`request` as above).',
  created: 'when a `/set` call created records: their method, creation id and new id.',
  ownMailIds: "`list_new`, `wait_for_mail`: ids of this inbox's own sent copies and drafts, left out of the text.",
  untrusted: 'when the result holds mail content: the paths (`[*]` for every element) of values written by others.',
  window: '`read_message`, `read_thread`: the body window shown (`offset`, `maxChars`).',
  trust:
    "listings and message views: per message id, the sender's authentication (`sender`: verdict, DMARC result, each method's result; reading one message, every parsed Authentication-Results entry), a display name claiming another sender (`nameClaim`), hidden text (`hidden`) and an HTML mail's preview as a person sees it (`preview`).",
  held: "when the operator's receive rules held mail back in this call: how many messages, under which rules, and the held ids the call itself asked for (`requested`).",
  showHidden: '`read_message`, `read_thread` with `SHOW_HIDDEN`: the hidden text is shown, marked.',
  unresolved: 'in a dry run: placeholders that are filled at run time.',
  notes: 'when there is something to know, e.g. mail a `wait_for_mail` filter passed over.',
  attachments: "with `attachments`: each uploaded file's name, type, size and blobId.",
  awaitingApproval:
    "when the operator's rules held mail for a person's yes instead of sending it: each draft's outbox id, email id, recipients, subject and rule (the summary starts with `HELD`).",
  waited:
    '`wait_for_mail`: how it waited (push or polling, and why not push), for how long, and whether the wait was clamped.',
  saved: 'with `download`: the file written (path, type, size).',
};

/** The keys as a Markdown list, for the jmap topic and docs/reference.md. */
export function renderJmapResultKeys(): string {
  return Object.entries(jmapResultKeys)
    .map(([key, text]) => `- \`${key}\`: ${text}`)
    .join('\n');
}
