import { MailboxError } from '../errors.js';
import type { ServiceGate } from '../gate/service-gate.js';
import { inferUsing } from '../jmap/parse-ops.js';
import type { JmapRequest, JmapResponse } from '../jmap/jmap-types.js';
import { lineOf, summarizeResponse, type JmapFailure } from '../jmap/summarize-response.js';
import { captureVariables } from '../presets/capture-variables.js';
import type { Preset, PresetStep } from '../presets/preset-schema.js';
import type { RequestPlan } from './plan-request.js';
import { substituteVariables } from '../presets/substitute-variables.js';
import { isRecord } from '../is-record.js';

/** One executed (or, in a dry run, shown) request of a preset. */
export interface StepRun {
  readonly id: string;
  /** What was sent (absent for a wait's looks: the result shows what they found, not each look). */
  readonly request?: JmapRequest;
  readonly response?: JmapResponse;
  /** One line: what this step did (or why it failed). */
  readonly summary?: string;
}

/** What the steps did, and the variables they leave: the plan's, with every step's captures over them. */
export interface StepsOutcome {
  readonly done: readonly StepRun[];
  readonly failures: readonly JmapFailure[];
  readonly unresolved: ReadonlySet<string>;
  readonly notes: readonly string[];
  readonly vars: Readonly<Record<string, unknown>>;
}

/** Runs the plan's steps in order; stops at the first failed call, failed capture or loop-guard refusal. */
export async function runPresetSteps(
  plan: Pick<RequestPlan, 'steps' | 'session' | 'preset' | 'dryRun'>,
  given: Readonly<Record<string, unknown>>,
  gate: ServiceGate,
): Promise<StepsOutcome> {
  const done: StepRun[] = [];
  const failures: JmapFailure[] = [];
  const unresolved = new Set<string>();
  const notes: string[] = [];
  // Each step's captures make a new set of variables for the next: nothing is written into the caller's.
  let vars = given;
  for (const step of plan.steps) {
    if (step.when?.defined && vars[step.when.defined] === undefined) continue;
    if (step.when?.missing && vars[step.when.missing] !== undefined) continue;
    const { value: methodCalls, missing } = substituteVariables(step.methodCalls, vars, {
      keepMissing: plan.dryRun,
    });
    missing.forEach((name) => unresolved.add(name));
    if (step.note) notes.push(substituteVariables(step.note, vars, { keepMissing: true }).value);
    const request: JmapRequest = {
      using: inferUsing(methodCalls, plan.session?.capabilities, step.using),
      methodCalls,
    };
    const maxCalls = plan.session?.limits.maxCallsInRequest;
    if (maxCalls !== undefined && methodCalls.length > maxCalls)
      throw new MailboxError({
        code: 'ops_invalid',
        message: `The request has ${methodCalls.length} method calls; the server accepts ${maxCalls} (maxCallsInRequest).`,
        hint: 'Split the calls over several jmap_request runs.',
      });
    if (plan.dryRun) {
      done.push({ id: step.id, request });
      continue;
    }
    const response = await gate.call(request);
    const summary = summarizeResponse(request, response, { held: gate.screen.requestedHeld() });
    const run = { id: step.id, request, response };
    if (!summary.ok) {
      done.push({ ...run, summary: summary.summaryLine });
      failures.push(...summary.failures);
      notes.push(...(await removeRefusedDrafts(response, gate, plan.session?.accountId)));
      break;
    }
    const captured = await captureVariables(step, response, vars);
    if (captured.failure) {
      done.push({ ...run, summary: `FAILED: ${lineOf(captured.failure)}` });
      failures.push(captured.failure);
      break;
    }
    vars = { ...vars, ...captured.vars };
    const refusal = loopGuardRefusal(plan.preset, vars, step, response);
    if (refusal) {
      done.push({ ...run, summary: `REFUSED: ${lineOf(refusal)}` });
      failures.push(refusal);
      break;
    }
    done.push({ ...run, summary: summary.summaryLine });
  }
  return { done, failures, unresolved, notes, vars };
}

/** RFC 3834 §2: no automatic answer to automatic mail, unless the caller says so (a person behind a list) with the allow variable. */
function loopGuardRefusal(
  preset: Preset | undefined,
  vars: Readonly<Record<string, unknown>>,
  step: PresetStep,
  response: JmapResponse,
): JmapFailure | undefined {
  const guard = preset?.loopGuard;
  if (!guard || !step.capture || !(guard.reasonVariable in step.capture)) return undefined;
  const reason = vars[guard.reasonVariable];
  const allowed = vars[guard.allowVariable];
  if (typeof reason !== 'string' || reason === '' || allowed === true || allowed === 'true') return undefined;
  const [method = 'Email/get', , callId = ''] = response.methodResponses[0] ?? [];
  return {
    callId,
    method,
    level: 'method',
    type: 'automaticMessage',
    description: `the message is automatic mail (${reason})`,
    fix: `Nothing was sent: answering automatic mail can start a mail loop (RFC 3834). Do not reply; if the operator really wants to, pass vars {"${guard.allowVariable}": true}.`,
  };
}

/**
 * A refused submission (forbiddenFrom, invalidRecipients…) leaves its Email in Drafts, to show up later
 * as mail: it is destroyed, by a new request about a known id, not a resend of the refused one.
 */
async function removeRefusedDrafts(
  response: JmapResponse,
  gate: ServiceGate,
  accountId: string | undefined,
): Promise<string[]> {
  const refused = response.methodResponses.some(
    ([name, args]) =>
      name === 'error' ||
      (name === 'EmailSubmission/set' && isRecord(args.notCreated) && Object.keys(args.notCreated).length > 0),
  );
  const submitted = response.methodResponses.some(([name]) => name === 'EmailSubmission/set');
  if (!refused || !submitted) return [];
  const draftIds = response.methodResponses.flatMap(([name, args]) =>
    name === 'Email/set' && isRecord(args.created)
      ? Object.values(args.created).flatMap((c) => (isRecord(c) && typeof c.id === 'string' ? [c.id] : []))
      : [],
  );
  if (draftIds.length === 0 || !accountId) return [];
  try {
    const cleanup = await gate.call({
      using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
      methodCalls: [['Email/set', { accountId, destroy: draftIds }, 'cleanup']],
    });
    const args = cleanup.methodResponses[0]?.[1];
    const destroyed = isRecord(args) && Array.isArray(args.destroyed) ? args.destroyed.length : 0;
    if (destroyed === draftIds.length)
      return [`The refused message's draft (${draftIds.join(', ')}) was deleted, so it will not show up as mail.`];
  } catch {
    // Reported below: the refusal itself is what the caller must see first.
  }
  return [
    `The refused message's draft ${draftIds.join(', ')} could not be deleted; delete it with move_to_trash or Email/set destroy.`,
  ];
}
