import * as z from 'zod';
import type { Account } from '../auth/account-registry.js';
import { MailboxError } from '../errors.js';
import type { ServiceGate } from '../gate/service-gate.js';
import { inferUsing } from '../jmap/parse-ops.js';
import { changesResponseSchema, type JmapResponse, type JmapSessionInfo } from '../jmap/jmap-types.js';
import { lineOf, summarizeResponse } from '../jmap/summarize-response.js';
import type { Preset } from '../presets/preset-schema.js';
import { substituteVariables } from '../presets/substitute-variables.js';
import { openWakeSource } from '../mail/mail-wake-source.js';
import type { JmapRequestContext, WaitReport } from './jmap-request-types.js';
import type { RequestPlan } from './plan-request.js';
import { isOwnMail, type SentRequest } from './send-request.js';

export interface WaitContext extends Pick<JmapRequestContext, 'signal' | 'log' | 'progress' | 'wake'> {
  account: Account;
}

type WaitingPreset = Preset & { wait: NonNullable<Preset['wait']> };

/** What the looks of one wait share. */
interface Looking {
  gate: ServiceGate;
  account: Account;
  session: JmapSessionInfo;
  preset: WaitingPreset;
  vars: Readonly<Record<string, unknown>>;
}

/** Where the last filtered wait stopped while list_new's cursor stayed behind (state.json). */
const waitPositionSchema = z.object({ base: z.string(), at: z.string() });
const emailListSchema = z.looseObject({ list: z.array(z.looseObject({ id: z.string() })) });
type Email = z.infer<typeof emailListSchema>['list'][number];

/** An MCP call keeps this much of its budget for the final check and the answer. */
const budgetReserveMs = 5000;
/** Email/changes pages per check (200 changes each). */
const maxPagesPerCheck = 50;

/**
 * The wait stage (wait_for_mail, in the send stage's place): returns once mail from others arrives after
 * list_new's cursor (without one, unread Inbox mail counts), as one step in list_new's shape.
 */
export async function waitForMail(plan: RequestPlan, gate: ServiceGate, ctx: WaitContext): Promise<SentRequest> {
  const preset = plan.preset as WaitingPreset;
  // A waiting preset saves its own cursor (it may have to keep it behind mail a filter skipped).
  const cursorVariable = preset.cursor?.variable ?? 'SINCE_STATE';
  const vars = Object.fromEntries(Object.entries(plan.vars).filter(([name]) => name !== cursorVariable));
  const { seconds, clamped } = waitSeconds(
    vars[preset.wait.timeoutVariable],
    preset.wait.maxSeconds,
    gate.deadline.budgetMs,
  );
  const looking: Looking = { gate, account: ctx.account, session: await gate.session(), preset, vars };
  // The wait is the caller's: its window runs off the timeout's clock, each look still bounded by what is left of it.
  return gate.deadline.offTheClock(() => waitWindow(looking, seconds, clamped, ctx));
}

async function waitWindow(looking: Looking, seconds: number, clamped: boolean, ctx: WaitContext): Promise<SentRequest> {
  const now = ctx.wake?.now ?? Date.now;
  const startedAt = now();
  const endsAt = startedAt + seconds * 1000;
  const { account, session, preset, vars } = looking;
  const state = await account.readState();
  const saved = typeof state.listNewState === 'string' ? state.listNewState : undefined;
  const position = waitPositionSchema.safeParse(state.waitForMailPosition);
  const resumed = saved !== undefined && position.success && position.data.base === saved;
  // The stream opens before the first look, so a delivery between the two is never missed.
  const source = await openWakeSource({
    gate: looking.gate,
    eventSourceUrl: session.eventSourceUrl,
    signal: ctx.signal,
    log: ctx.log,
    ...ctx.wake,
  });
  const report = (elapsedMs: number): void => {
    const elapsed = Math.min(seconds, Math.round(elapsedMs / 1000));
    const message = `Waiting for new mail (${source.mode}): ${elapsed} of ${seconds} s`;
    ctx.progress?.({ progress: elapsed, total: seconds, message });
  };
  const ticker = setInterval(() => report(now() - startedAt), 1000);
  try {
    report(0);
    // Before list_new ever ran, unread Inbox mail is new too: list_new's first run would list it.
    const start: FirstLook =
      resumed && position.success
        ? { state: position.data.at }
        : saved !== undefined
          ? { state: saved }
          : await firstLook(looking);
    const startState = start.state;
    let since = startState;
    const matched: Email[] = [];
    const seen = new Set<string>();
    let others = 0;
    let earlierOthers = 0;
    for (const email of start.unread ?? []) {
      if (isOwnMail(email, vars)) continue;
      seen.add(email.id);
      if (matchesFilter(email, vars, preset.wait)) matched.push(email);
      else earlierOthers += 1;
    }
    let checks = 0;
    for (;;) {
      const found = await newMailSince(since, looking);
      checks += 1;
      since = found.newState;
      for (const email of found.emails) {
        // The first look's state is read before its unread list: a delivery in between is in both.
        if (isOwnMail(email, vars) || seen.has(email.id)) continue;
        if (matchesFilter(email, vars, preset.wait)) matched.push(email);
        else others += 1;
      }
      if (matched.length > 0 || now() >= endsAt) break;
      // Past the first look, any delivery is seen; said once, for --verbose and for tests that deliver then.
      if (checks === 1) ctx.log.debug(`wait_for_mail: looked once; now waiting by ${source.mode}`);
      await source.wait(endsAt);
    }
    const earlier = earlierNote(earlierOthers, start.unreadTotal, start.unread?.length ?? 0);
    const waited = {
      mode: source.mode,
      seconds,
      waitedMs: now() - startedAt,
      checks,
      clamped,
      ...(source.fallbackReason ? { fallbackReason: source.fallbackReason } : {}),
    };
    const response = waitResponse(session.accountId, startState, since, matched);
    return {
      outcome: {
        done: [{ id: 'wait', response, summary: waitSummary(waited, matched.length) }],
        failures: [],
        unresolved: new Set(),
        notes: earlier ? [earlier] : [],
        vars,
      },
      own: [],
      waited: { ...waited, cursor: { saved, startState, since, resumed, others, matched: matched.length } },
    };
  } finally {
    clearInterval(ticker);
    source.close();
  }
}

/** One line: what the wait found, how it waited, and whether it was shortened. */
function waitSummary(w: Omit<WaitReport, 'cursor'>, found: number): string {
  const how =
    w.mode === 'push'
      ? 'push (JMAP EventSource)'
      : `polling Email/changes${w.fallbackReason ? ` (${w.fallbackReason})` : ''}`;
  return found > 0
    ? `OK: ${found} new message${found === 1 ? '' : 's'} from others after ${Math.round(w.waitedMs / 100) / 10} s, waited by ${how}.`
    : `OK: no new mail in ${w.seconds} s (waited by ${how}).${w.clamped ? " The wait was shortened to fit this call's time budget: call again to keep waiting." : ''}`;
}

/** What the wait found, in list_new's shape (Email/changes, then Email/get), so every later stage reads it alike. */
function waitResponse(accountId: string, oldState: string, newState: string, matched: readonly Email[]): JmapResponse {
  return {
    methodResponses: [
      [
        'Email/changes',
        {
          accountId,
          oldState,
          newState,
          hasMoreChanges: false,
          created: matched.map((e) => e.id),
          updated: [],
          destroyed: [],
        },
        'changes',
      ],
      ['Email/get', { accountId, state: newState, list: matched, notFound: [] }, 'get'],
    ],
  };
}

function waitSeconds(
  value: unknown,
  maxSeconds: number,
  budgetMs: number | undefined,
): { seconds: number; clamped: boolean } {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > maxSeconds)
    throw new MailboxError({
      code: 'vars_invalid',
      message: `TIMEOUT_SECONDS must be a whole number from 1 to ${maxSeconds}, got ${JSON.stringify(value)}.`,
      hint: 'Pass e.g. {"TIMEOUT_SECONDS": 30}.',
    });
  if (budgetMs === undefined) return { seconds: value, clamped: false };
  const budget = Math.max(1, Math.floor((budgetMs - budgetReserveMs) / 1000));
  return value > budget ? { seconds: budget, clamped: true } : { seconds: value, clamped: false };
}

/** The preset's step with this id, run once with the run's vars; a failed call becomes a clear error. */
async function runStep(looking: Looking, id: string, vars = looking.vars): Promise<JmapResponse> {
  const { preset, account } = looking;
  const step = preset.steps.find((s) => s.id === id);
  if (!step)
    throw new MailboxError({
      code: 'internal',
      message: `The wait_for_mail preset has no "${id}" step.`,
      hint: 'Report this preset as broken.',
    });
  const { value: methodCalls } = substituteVariables(step.methodCalls, vars);
  const request = { using: inferUsing(methodCalls, looking.session.capabilities, step.using), methodCalls };
  const response = await looking.gate.call(request);
  const summary = summarizeResponse(request, response);
  if (!summary.ok) {
    const failure = summary.failures[0];
    if (failure && (preset.cursor?.resetOn ?? []).includes(failure.type)) {
      await account.updateState((state) => ({ ...state, listNewState: undefined, waitForMailPosition: undefined }));
      throw new MailboxError({
        code: 'jmap_request_error',
        message: `The saved list_new cursor is too old for the server (${failure.type}) and has been reset.`,
        hint: 'Run list_new to see recent mail, then wait_for_mail again.',
        next: { operation: 'jmap_request', input: { ops_file: 'list_new' } },
      });
    }
    throw new MailboxError({
      code: 'jmap_request_error',
      message: `Waiting for mail failed: ${failure ? lineOf(failure) : summary.summaryLine}`,
      hint: 'Check the inbox with list_new, then call wait_for_mail again.',
    });
  }
  return response;
}

function argsOf(response: JmapResponse, callId: string): unknown {
  return response.methodResponses.find(([name, , id]) => id === callId && name !== 'error')?.[1];
}

/** Where a wait starts; `unread` only on the first look of an inbox that has no cursor yet. */
interface FirstLook {
  state: string;
  unread?: Email[];
  unreadTotal?: number;
}

/** With no cursor: the current Email state, then the unread Inbox mail already there (newest first). */
async function firstLook(looking: Looking): Promise<Required<FirstLook>> {
  const response = await runStep(looking, 'start');
  const state = z.object({ state: z.string() }).safeParse(argsOf(response, 'state'));
  if (!state.success) throw badAnswer('Email/get has no state');
  const total = z
    .looseObject({ ids: z.array(z.string()), total: z.number().int().nonnegative().optional() })
    .safeParse(argsOf(response, 'unread'));
  const unread = emailListSchema.safeParse(argsOf(response, 'unread_get'));
  if (!total.success || !unread.success)
    throw badAnswer('Email/query or Email/get of unread Inbox mail is not shaped as RFC 8621 says');
  return { state: state.data.state, unread: unread.data.list, unreadTotal: total.data.total ?? total.data.ids.length };
}

/** What the first look over unread Inbox mail passed over, if anything. */
function earlierNote(earlierOthers: number, unreadTotal: number | undefined, looked: number): string | undefined {
  const parts: string[] = [];
  if (earlierOthers > 0)
    parts.push(
      `${earlierOthers} other unread message${earlierOthers === 1 ? ' was' : 's were'} already in the Inbox and did not match the filter.`,
    );
  if (unreadTotal !== undefined && unreadTotal > looked)
    parts.push(`Only the newest ${looked} of ${unreadTotal} unread messages already in the Inbox were looked at.`);
  return parts.length > 0 ? `${parts.join(' ')} list_inbox shows them all.` : undefined;
}

/** Every page of Email/changes since `since`, with the created messages' listing properties. */
async function newMailSince(since: string, looking: Looking): Promise<{ newState: string; emails: Email[] }> {
  const emails: Email[] = [];
  let state = since;
  for (let page = 0; page < maxPagesPerCheck; page++) {
    const response = await runStep(looking, 'changes', { ...looking.vars, SINCE_STATE: state });
    const changes = changesResponseSchema.safeParse(argsOf(response, 'changes'));
    const got = emailListSchema.safeParse(argsOf(response, 'get'));
    if (!changes.success || !got.success)
      throw badAnswer('Email/changes or Email/get is not shaped as RFC 8620/8621 says');
    emails.push(...got.data.list);
    state = changes.data.newState;
    if (!changes.data.hasMoreChanges) break;
  }
  return { newState: state, emails };
}

function badAnswer(detail: string): MailboxError {
  return new MailboxError({
    code: 'bad_response',
    message: `The JMAP host's answer while waiting for mail was unusable: ${detail}.`,
    hint: 'Run list_new instead; report the server if it persists.',
  });
}

function matchesFilter(email: Email, vars: Looking['vars'], wait: WaitingPreset['wait']): boolean {
  const from = wait.fromVariable ? vars[wait.fromVariable] : undefined;
  const thread = wait.threadVariable ? vars[wait.threadVariable] : undefined;
  if (typeof thread === 'string' && email.threadId !== thread) return false;
  if (typeof from === 'string') {
    const needle = from.toLowerCase();
    const senders = Array.isArray(email.from) ? (email.from as { email?: unknown; name?: unknown }[]) : [];
    return senders.some((s) =>
      [s.email, s.name].some((v) => typeof v === 'string' && v.toLowerCase().includes(needle)),
    );
  }
  return true;
}
