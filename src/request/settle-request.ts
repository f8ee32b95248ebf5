import type { Account } from '../auth/account-registry.js';
import type { NextStep } from '../errors.js';
import type { ServiceGate } from '../gate/service-gate.js';
import type { JmapFailure } from '../jmap/summarize-response.js';
import { lastEmailList } from '../present/present-jmap-result.js';
import { applicableNext } from '../presets/preset-next-steps.js';
import type { RequestPlan } from './plan-request.js';
import type { StepRun } from './run-preset-steps.js';
import type { WaitReport } from './jmap-request-types.js';
import type { SentRequest } from './send-request.js';

/** What the settle stage leaves for the result: the next steps, and notes on what it did. */
export interface SettledRequest {
  readonly next: readonly (string | NextStep)[];
  readonly notes: readonly string[];
}

/** The settle stage, after a real run: the list_new cursor saved or reset, a stale session refreshed, the next steps. */
export async function settleRequest(
  account: Account,
  plan: RequestPlan,
  sent: SentRequest,
  gate: ServiceGate,
): Promise<SettledRequest> {
  if (plan.dryRun) return { next: [], notes: [] };
  if (sent.waited) return settleWait(account, plan, sent, sent.waited);
  return { next: await settleSteps(account, plan, sent, gate), notes: [] };
}

async function settleSteps(
  account: Account,
  plan: RequestPlan,
  sent: SentRequest,
  gate: ServiceGate,
): Promise<(string | NextStep)[]> {
  const { outcome } = sent;
  const ok = outcome.failures.length === 0;
  const next = ok ? presetNext(plan, sent, saysMoreChanges(outcome.done)) : [];
  const cursor = plan.preset?.cursor;
  if (cursor) {
    const saved = outcome.vars[cursor.saveFrom];
    if (outcome.failures.some((f) => cursor.resetOn?.includes(f.type))) {
      await account.updateState((state) => ({ ...state, [cursor.stateField]: undefined }));
      next.unshift(
        `The saved ${plan.presetName} cursor was too old and has been reset: run ${plan.presetName} again to list recent mail.`,
      );
    } else if (ok && typeof saved === 'string' && (await account.readState())[cursor.stateField] !== saved) {
      // Unchanged (a listing with nothing new): no lock, no write; a concurrent writer's value stands as if written after.
      await account.updateState((state) => ({ ...state, [cursor.stateField]: saved }));
    }
  }
  if (outcome.failures.some(isStaleSessionSymptom)) {
    // Other calls of the batch may have applied, so nothing is resent: the caller decides to rerun.
    await gate.session({ refresh: true });
    next.unshift('The cached JMAP session was refreshed because an id from it was rejected: run the request again.');
  }
  const last = outcome.done[outcome.done.length - 1];
  if (last?.response?._next) next.push(...last.response._next);
  return next;
}

/** After a wait: list_new's cursor placed, and the next steps (read what came, or wait again). */
async function settleWait(
  account: Account,
  plan: RequestPlan,
  sent: SentRequest,
  waited: WaitReport,
): Promise<SettledRequest> {
  const note = await settleWaitCursor(account, waited.cursor);
  const next =
    waited.cursor.matched > 0
      ? presetNext(plan, sent, false)
      : [
          waited.clamped
            ? 'Call wait_for_mail again to keep waiting.'
            : 'Call wait_for_mail again to keep waiting, or list_new to check later.',
        ];
  return { next, notes: note ? [note] : [] };
}

/** list_new's cursor past what a wait returned, unless a filter passed mail over: then the wait's position kept beside it. */
async function settleWaitCursor(account: Account, w: WaitReport['cursor']): Promise<string | undefined> {
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

/** The preset's next steps that apply, `listed` being the messages from others in the run's last listing (Email/get). */
function presetNext(plan: RequestPlan, sent: SentRequest, moreChanges: boolean): (string | NextStep)[] {
  const own = new Set(sent.own);
  const last = lastEmailList(sent.outcome.done.flatMap((step) => (step.response ? [step.response] : [])));
  const listed = (last ?? []).map((email) => String(email.id)).filter((id) => !own.has(id));
  return applicableNext(plan.preset?.next ?? [], sent.outcome.vars, { listed, moreChanges });
}

function saysMoreChanges(done: readonly StepRun[]): boolean {
  return done.some((step) =>
    (step.response?.methodResponses ?? []).some(
      ([method, args]) => method.endsWith('/changes') && args.hasMoreChanges === true,
    ),
  );
}

function isStaleSessionSymptom(failure: JmapFailure): boolean {
  if (failure.type === 'accountNotFound') return true;
  return (
    failure.type === 'invalidProperties' &&
    (failure.properties ?? []).some((p) => p.startsWith('mailboxIds') || p === 'identityId')
  );
}
