import { MailboxError } from '../errors.js';
import type { ServiceGate } from '../gate/service-gate.js';
import { attachmentVariables } from '../mail/prepare-attachments.js';
import type { JmapRequestResult, WaitReport } from './jmap-request-types.js';
import type { RequestPlan } from './plan-request.js';
import { runPresetSteps, type StepRun, type StepsOutcome } from './run-preset-steps.js';

/** What the send stage did: the steps run (or, in a dry run, shown) with the variables they leave, and the files uploaded. */
export interface SentRequest {
  readonly outcome: StepsOutcome;
  /** The attached files as the result lists them. */
  readonly attachments?: JmapRequestResult['attachments'];
  /** Drafts and the inbox's own sent copies among the mail the steps read. */
  readonly own: readonly string[];
  /** The wait stage's (wait_for_mail) instead of steps sent: how it waited. */
  readonly waited?: WaitReport;
}

/** The send stage: the files first (their blob ids become $ATTACHMENT_… variables), then the steps; a dry run sends nothing. */
export async function sendRequest(plan: RequestPlan, gate: ServiceGate): Promise<SentRequest> {
  const blobIds: (string | undefined)[] = [];
  for (const file of plan.files)
    blobIds.push(
      plan.dryRun
        ? undefined
        : (await gate.upload({ bytes: file.bytes, type: file.type, source: { kind: 'file', path: file.path } })).blobId,
    );
  // The caller's vars win over the attachments' own, as over every other source.
  const vars =
    plan.files.length > 0 ? { ...plan.vars, ...attachmentVariables(plan.files, blobIds), ...plan.given } : plan.vars;
  const outcome = await runPresetSteps(plan, vars, gate);
  if (outcome.done.length === 0)
    throw new MailboxError({
      code: 'internal',
      message: 'No step of the preset applied.',
      hint: 'Report this preset as broken.',
    });
  const own = ownMailIds(outcome.done, outcome.vars);
  if (plan.files.length === 0) return { outcome, own };
  const attachments = plan.files.map((f, i) => ({
    name: f.name,
    type: f.type,
    size: f.size,
    ...(blobIds[i] ? { blobId: blobIds[i] } : {}),
  }));
  return { outcome, own, attachments };
}

/** Drafts, and mail that sits only in Sent or Drafts: written by this inbox, not new to it (as list_new treats them). */
export function isOwnMail(email: Record<string, unknown>, vars: Readonly<Record<string, unknown>>): boolean {
  const own = new Set([vars.SENT_MAILBOX_ID, vars.DRAFTS_MAILBOX_ID].filter((v): v is string => typeof v === 'string'));
  const keywords = (email.keywords ?? {}) as Record<string, unknown>;
  const boxes = Object.keys((email.mailboxIds ?? {}) as Record<string, unknown>);
  return keywords.$draft === true || (boxes.length > 0 && boxes.every((b) => own.has(b)));
}

function ownMailIds(done: readonly StepRun[], vars: Readonly<Record<string, unknown>>): string[] {
  return done.flatMap((step) =>
    (step.response?.methodResponses ?? []).flatMap(([method, args]) =>
      method === 'Email/get' && Array.isArray(args.list)
        ? (args.list as Record<string, unknown>[]).flatMap((email) =>
            isOwnMail(email, vars) && typeof email.id === 'string' ? [email.id] : [],
          )
        : [],
    ),
  );
}
