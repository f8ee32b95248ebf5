import type { Account } from '../auth/account-registry.js';
import { MailboxError, type NextStep } from '../errors.js';
import type { Logger } from '../log.js';
import { builtinVariables } from '../presets/builtin-variables.js';
import { checkRequires, planJmapRequest, type JmapRequestPlan } from './plan-request.js';
import { JmapClient } from '../jmap/jmap-client.js';
import { readCachedSession } from '../jmap/jmap-session.js';
import type { JmapRequest, JmapResponse, JmapSessionInfo } from '../jmap/jmap-types.js';
import { attachmentVariables, checkAttachmentLimits, readAttachments } from '../mail/prepare-attachments.js';
import { applicableNext } from '../presets/preset-next-steps.js';
import { runPresetSteps, type StepRun, type StepsOutcome } from './run-preset-steps.js';
import type { JmapFailure } from '../jmap/summarize-response.js';
import { untrustedPaths } from '../present/untrusted-paths.js';
import { waitForMail, type WaitContext, type WaitProgress } from '../mail/wait-for-mail.js';

export interface JmapRequestInput {
  ops?: unknown;
  ops_file?: string;
  vars?: Record<string, unknown> | string;
  attachments?: string[];
  dry_run?: boolean;
  /** Show the substituted request(s) in the result. */
  echo_request?: boolean;
}

export interface JmapRequestContext {
  signal: AbortSignal;
  log: Logger;
  timeoutMs?: number;
  /** For tests: the HTTP implementation. */
  fetch?: typeof fetch;
  /** Reports a long wait (wait_for_mail) as it goes; MCP turns it into progress notifications. */
  progress?: (update: WaitProgress) => void;
  /** The caller's per-call budget (MCP); wait_for_mail is clamped to fit it. */
  deadlineMs?: number;
  /** Test hooks of wait_for_mail's wake source (poll intervals, ping period). */
  wake?: WaitContext['wake'];
}

/** One step as the result shows it: the request only in a dry run or with echo_request. */
export interface JmapStepResult {
  id: string;
  summary?: string;
  request?: JmapRequest;
  response?: JmapResponse;
}

/** A record a /set call created: what a multi-step summary names. */
export interface CreatedRecord {
  method: string;
  creationId: string;
  id: string;
}

// A type alias, not an interface: the operation's loose output schema needs an index-signature-compatible type.
export type JmapRequestResult = {
  ok: boolean;
  /** One line: what happened in every step, or every failure with its fix. */
  summary: string;
  dryRun: boolean;
  preset?: string;
  /** How the model-facing text shows it (present-jmap-result.ts). */
  view?: 'listing' | 'message' | 'thread';
  /** The substituted request: only in a dry run or with echo_request (one step). */
  request?: JmapRequest;
  /** The server's response, unchanged (one step ran). */
  response?: JmapResponse;
  failures: JmapFailure[];
  /** What to do next: a sentence, or a call of the operations table. */
  next?: (string | NextStep)[];
  /** Several steps ran: each with its own summary and response (request only in a dry run or with echo_request). */
  steps?: JmapStepResult[];
  created?: CreatedRecord[];
  /** list_new: ids of the inbox's own sent copies and drafts, left out of the text. */
  ownMailIds?: string[];
  /** Paths (with [*] for every element) of values written by others: mail content. */
  untrusted?: string[];
  /** Body window of read_message/read_thread: characters from offset, at most maxChars. */
  window?: { offset: number; maxChars: number };
  unresolved?: string[];
  notes?: string[];
  attachments?: { name: string; type: string; size: number; blobId?: string }[];
  /** wait_for_mail: how it waited (push or polling, and why not push), for how long, clamped or not. */
  waited?: { mode: 'push' | 'polling'; seconds: number; waitedMs: number; checks: number; clamped: boolean; fallbackReason?: string };
};

/** Runs jmap_request: ops or a preset, substituted, sent (unless dry run), summarised. */
export async function runJmapRequest(account: Account, input: JmapRequestInput, ctx: JmapRequestContext): Promise<JmapRequestResult> {
  const plan = await planJmapRequest(input);
  const dryRun = input.dry_run === true;
  const client = new JmapClient(account, { log: ctx.log, timeoutMs: ctx.timeoutMs ?? 30_000, ...(ctx.fetch ? { fetch: ctx.fetch } : {}) });
  // A dry run makes no network call at all: only what state.json already knows.
  const session: JmapSessionInfo | undefined = dryRun ? await readCachedSession(account) : await client.session({ signal: ctx.signal });
  checkRequires(plan.preset, plan.presetName, session);

  const vars: Record<string, unknown> = { ...(await builtinVariables(account, session)), ...plan.vars };
  const attachments = await uploadAttachments(input.attachments, vars, plan, { client, session, dryRun, signal: ctx.signal });
  const cursor = plan.preset?.cursor;
  if (cursor && vars[cursor.variable] === undefined) {
    const saved = (await account.readState())[cursor.stateField];
    if (saved) vars[cursor.variable] = saved;
  }

  if (plan.preset?.wait && !dryRun && session) {
    // A waiting preset saves its own cursor (it may have to keep it behind mail a filter skipped).
    delete vars[plan.preset.cursor?.variable ?? 'SINCE_STATE'];
    return waitForMail(plan, vars, { ...ctx, account, client, session });
  }
  const outcome = await runPresetSteps(plan.steps, vars, { client, session, preset: plan.preset, dryRun, signal: ctx.signal });
  if (outcome.done.length === 0) throw new MailboxError({ code: 'internal', message: 'No step of the preset applied.', hint: 'Report this preset as broken.' });
  // Own sent copies and drafts: left out of list_new's text, and not "mail from others" for next steps.
  const own = ownMailIds(outcome.done, vars);
  const next = dryRun ? [] : await settleAfterRun(account, client, plan, vars, outcome, own, ctx.signal);
  const result = buildResult(plan, vars, outcome, { dryRun, verbose: input.echo_request === true, next, own });
  if (attachments) result.attachments = attachments;
  return result;
}

async function uploadAttachments(
  paths: string[] | undefined,
  vars: Record<string, unknown>,
  plan: JmapRequestPlan,
  options: { client: JmapClient; session: JmapSessionInfo | undefined; dryRun: boolean; signal: AbortSignal },
): Promise<JmapRequestResult['attachments']> {
  if (!paths?.length) return undefined;
  const files = await readAttachments(paths);
  if (options.session) checkAttachmentLimits(files, options.session.limits);
  const blobIds: (string | undefined)[] = [];
  for (const file of files) blobIds.push(options.dryRun ? undefined : (await options.client.upload(file.bytes, file.type, { signal: options.signal })).blobId);
  Object.assign(vars, attachmentVariables(files, blobIds), plan.vars);
  return files.map((f, i) => ({ name: f.name, type: f.type, size: f.size, ...(blobIds[i] ? { blobId: blobIds[i] } : {}) }));
}

/** After a real run: the list_new cursor is saved or reset, a stale session refreshed; returns the next steps. */
async function settleAfterRun(
  account: Account,
  client: JmapClient,
  plan: JmapRequestPlan,
  vars: Record<string, unknown>,
  outcome: StepsOutcome,
  own: readonly string[],
  signal: AbortSignal,
): Promise<(string | NextStep)[]> {
  const ok = outcome.failures.length === 0;
  const next: (string | NextStep)[] = ok ? applicableNext(plan.preset?.next ?? [], vars, { listed: listedFromOthers(outcome.done, own), moreChanges: saysMoreChanges(outcome.done) }) : [];
  const cursor = plan.preset?.cursor;
  if (cursor) {
    const saved = vars[cursor.saveFrom];
    if (outcome.failures.some((f) => cursor.resetOn?.includes(f.type))) {
      await account.updateState((state) => ({ ...state, [cursor.stateField]: undefined }));
      next.unshift(`The saved ${plan.presetName} cursor was too old and has been reset: run ${plan.presetName} again to list recent mail.`);
    } else if (ok && typeof saved === 'string') {
      await account.updateState((state) => ({ ...state, [cursor.stateField]: saved }));
    }
  }
  if (outcome.failures.some(isStaleSessionSymptom)) {
    // Ids from the cached session (account, mailboxes, identity) may be stale. Other calls of the
    // batch may have applied, so nothing is resent: refresh, and let the caller decide to rerun.
    await client.session({ signal, refresh: true });
    next.unshift('The cached JMAP session was refreshed because an id from it was rejected: run the request again.');
  }
  const last = outcome.done[outcome.done.length - 1];
  if (last?.response?._next) next.push(...last.response._next);
  return next;
}

/** Whether the last listing held a message from others (own sent copies and drafts do not count). */
/** Ids of the messages from others in the run's last listing (Email/get), in its order. */
function listedFromOthers(done: readonly StepRun[], ownIds: readonly string[]): string[] {
  const own = new Set(ownIds);
  const lists = done.flatMap((step) => (step.response?.methodResponses ?? []).filter(([method, args]) => method === 'Email/get' && Array.isArray(args.list)));
  const last = lists[lists.length - 1]?.[1].list as { id?: unknown }[] | undefined;
  return (last ?? []).map((email) => String(email.id)).filter((id) => !own.has(id));
}

function saysMoreChanges(done: readonly StepRun[]): boolean {
  return done.some((step) => (step.response?.methodResponses ?? []).some(([method, args]) => method.endsWith('/changes') && args.hasMoreChanges === true));
}

function buildResult(
  plan: JmapRequestPlan,
  vars: Record<string, unknown>,
  outcome: StepsOutcome,
  options: { dryRun: boolean; verbose: boolean; next: (string | NextStep)[]; own: readonly string[] },
): JmapRequestResult {
  const { done, failures } = outcome;
  const ok = failures.length === 0;
  const showRequest = options.dryRun || options.verbose;
  const result: JmapRequestResult = { ok, summary: summaryOf(plan, outcome, options.dryRun), dryRun: options.dryRun, failures };
  if (plan.presetName) result.preset = plan.presetName;
  if (plan.preset?.view) result.view = plan.preset.view;
  const only = done.length === 1 ? done[0] : undefined;
  if (only) {
    if (showRequest) result.request = only.request;
    if (only.response) result.response = only.response;
  } else {
    result.steps = done.map((step) => ({
      id: step.id,
      ...(step.summary ? { summary: step.summary } : {}),
      ...(showRequest ? { request: step.request } : {}),
      ...(step.response ? { response: step.response } : {}),
    }));
  }
  const created = createdRecords(done);
  if (created.length > 0) result.created = created;
  if (plan.preset?.excludeOwnMail && options.own.length > 0) result.ownMailIds = [...options.own];
  if (plan.preset?.view === 'message' || plan.preset?.view === 'thread') {
    result.window = { offset: numberVar(vars.BODY_OFFSET, 0), maxChars: numberVar(vars.MAX_CHARS, 12_000) };
  }
  if (options.next.length > 0) result.next = options.next;
  if (outcome.unresolved.size > 0) result.unresolved = [...outcome.unresolved].sort();
  if (outcome.notes.length > 0) result.notes = outcome.notes;
  const untrusted = untrustedPaths(result);
  if (untrusted.length > 0) result.untrusted = untrusted;
  return result;
}

function summaryOf(plan: JmapRequestPlan, outcome: StepsOutcome, dryRun: boolean): string {
  const { done, unresolved } = outcome;
  if (dryRun) {
    return (
      `DRY RUN: nothing was sent. ${done.length === 1 ? 'This is the request' : `These are the ${done.length} requests`} that would be sent.` +
      (unresolved.size > 0 ? ` Unresolved here (filled at run time from the server or an earlier step): ${[...unresolved].map((n) => `$${n}`).join(', ')}.` : '')
    );
  }
  // Steps with a `when` are alternatives (list_new's first run or changes): not "skipped".
  const skipped = plan.steps.filter((s) => !done.some((d) => d.id === s.id) && !s.when).map((s) => s.id);
  const tail = skipped.length > 0 ? ` Not run: ${skipped.join(', ')}.` : '';
  if (done.length === 1) return `${done[0]?.summary ?? ''}${tail}`;
  const failed = done.find((step) => !/^OK:/.test(step.summary ?? ''));
  const parts = done.map((step) => `${step.id}: ${(step.summary ?? '').replace(/^(OK|FAILED|REFUSED): /, '')}`);
  return `${failed ? 'FAILED' : 'OK'}: ${parts.join(' | ')}${tail}`;
}

function createdRecords(done: readonly StepRun[]): CreatedRecord[] {
  const out: CreatedRecord[] = [];
  for (const step of done) {
    for (const [method, args] of step.response?.methodResponses ?? []) {
      if (!method.endsWith('/set') && method !== 'Blob/upload') continue;
      const created = args.created;
      if (!created || typeof created !== 'object') continue;
      for (const [creationId, record] of Object.entries(created as Record<string, unknown>)) {
        const id = record && typeof record === 'object' ? (record as { id?: unknown }).id : undefined;
        if (typeof id === 'string') out.push({ method, creationId, id });
      }
    }
  }
  return out;
}

/** Drafts, and mail that sits only in Sent or Drafts: written by this inbox, not new to it. */
function ownMailIds(done: readonly StepRun[], vars: Readonly<Record<string, unknown>>): string[] {
  const ownBoxes = new Set([vars.SENT_MAILBOX_ID, vars.DRAFTS_MAILBOX_ID].filter((v): v is string => typeof v === 'string'));
  const ids: string[] = [];
  for (const step of done) {
    for (const [method, args] of step.response?.methodResponses ?? []) {
      if (method !== 'Email/get' || !Array.isArray(args.list)) continue;
      for (const email of args.list as Record<string, unknown>[]) {
        const keywords = (email.keywords ?? {}) as Record<string, unknown>;
        const boxes = Object.keys((email.mailboxIds ?? {}) as Record<string, unknown>);
        const onlyOwn = boxes.length > 0 && boxes.every((box) => ownBoxes.has(box));
        if ((keywords.$draft === true || onlyOwn) && typeof email.id === 'string') ids.push(email.id);
      }
    }
  }
  return ids;
}

function numberVar(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : fallback;
}

function isStaleSessionSymptom(failure: JmapFailure): boolean {
  if (failure.type === 'accountNotFound') return true;
  return failure.type === 'invalidProperties' && (failure.properties ?? []).some((p) => p.startsWith('mailboxIds') || p === 'identityId');
}
