import type { Account } from '../auth/account-registry.js';
import type { NextStep } from '../errors.js';
import type { JmapResponse, JmapSessionInfo } from '../jmap/jmap-types.js';
import { untrustedPaths } from '../present/untrusted-paths.js';
import { applicableNext } from '../presets/preset-next-steps.js';
import type { Preset } from '../presets/preset-schema.js';
import type { JmapRequestResult } from '../request/jmap-request-types.js';
import type { RequestPlan } from '../request/plan-request.js';

/** What a wait leaves behind: list_new's cursor, and the result (wait_for_mail's settle and present). */

/** A message as the wait's looks read it: its id, and the listing properties of the preset. */
export type WaitEmail = { id: string } & Record<string, unknown>;

/**
 * Advances list_new's cursor past what this wait returned. When a filter passed over other new
 * mail from others, the cursor stays where it was (list_new must still show that mail) and the
 * wait's own position is kept beside it, so the next wait does not return the same mail again.
 */
export async function settleWaitCursor(
  account: Account,
  w: {
    saved: string | undefined;
    startState: string;
    since: string;
    resumed: boolean;
    others: number;
    matched: number;
  },
): Promise<string | undefined> {
  const leftBehind = w.others > 0 || w.resumed;
  if (!leftBehind) {
    if (w.matched === 0 && w.saved === undefined) return undefined;
    await account.updateState((state) => ({ ...state, listNewState: w.since, waitForMailPosition: undefined }));
    return undefined;
  }
  const base = w.saved ?? w.startState;
  await account.updateState((state) => ({ ...state, listNewState: base, waitForMailPosition: { base, at: w.since } }));
  return w.others > 0
    ? `${w.others} other new message${w.others === 1 ? '' : 's'} from others did not match the filter: the list_new cursor was not moved past ${w.others === 1 ? 'it' : 'them'}, so list_new still shows ${w.others === 1 ? 'it' : 'them'}; the next wait_for_mail continues after this one.`
    : 'Earlier filtered waits left other mail for list_new: its cursor stays until list_new runs; the next wait_for_mail continues after this one.';
}

/** What one wait found and how it waited. */
export interface WaitOutcome {
  matched: WaitEmail[];
  startState: string;
  since: string;
  seconds: number;
  clamped: boolean;
  waitedMs: number;
  mode: 'push' | 'polling';
  fallbackReason: string | undefined;
  checks: number;
  notes: string[];
}

/** The wait's result, in list_new's shape so both doors present it alike. */
export function presentWait(
  plan: RequestPlan,
  preset: Preset,
  vars: Record<string, unknown>,
  session: JmapSessionInfo,
  o: WaitOutcome,
): JmapRequestResult {
  const how =
    o.mode === 'push'
      ? 'push (JMAP EventSource)'
      : `polling Email/changes${o.fallbackReason ? ` (${o.fallbackReason})` : ''}`;
  const waited = Math.round(o.waitedMs / 100) / 10;
  const n = o.matched.length;
  const summary =
    n > 0
      ? `OK: ${n} new message${n === 1 ? '' : 's'} from others after ${waited} s, waited by ${how}.`
      : `OK: no new mail in ${o.seconds} s (waited by ${how}).${o.clamped ? " The wait was shortened to fit this call's time budget: call again to keep waiting." : ''}`;
  const response: JmapResponse = {
    methodResponses: [
      [
        'Email/changes',
        {
          accountId: session.accountId,
          oldState: o.startState,
          newState: o.since,
          hasMoreChanges: false,
          created: o.matched.map((e) => e.id),
          updated: [],
          destroyed: [],
        },
        'changes',
      ],
      ['Email/get', { accountId: session.accountId, state: o.since, list: o.matched, notFound: [] }, 'get'],
    ],
  };
  const next: (string | NextStep)[] =
    n > 0
      ? applicableNext(preset.next ?? [], vars, { listed: o.matched.map((e) => e.id), moreChanges: false })
      : [
          o.clamped
            ? 'Call wait_for_mail again to keep waiting.'
            : 'Call wait_for_mail again to keep waiting, or list_new to check later.',
        ];
  const result: JmapRequestResult = {
    ok: true,
    summary,
    dryRun: false,
    preset: plan.presetName ?? 'wait_for_mail',
    view: 'listing',
    response,
    failures: [],
    next,
    waited: {
      mode: o.mode,
      seconds: o.seconds,
      waitedMs: o.waitedMs,
      checks: o.checks,
      clamped: o.clamped,
      ...(o.fallbackReason ? { fallbackReason: o.fallbackReason } : {}),
    },
  };
  if (o.notes.length > 0) result.notes = o.notes;
  const untrusted = untrustedPaths(result);
  if (untrusted.length > 0) result.untrusted = untrusted;
  return result;
}
