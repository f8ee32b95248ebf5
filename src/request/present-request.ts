import { recordsOf } from '../present/present-created.js';
import { untrustedPaths } from '../present/untrusted-paths.js';
import type { JmapRequestResult } from './jmap-request-types.js';
import type { RequestPlan } from './plan-request.js';
import type { SentRequest } from './send-request.js';
import type { SettledRequest } from './settle-request.js';

/** The present stage: the result both doors render, with the paths of every value written by others. */
export function presentRequest(plan: RequestPlan, sent: SentRequest, settled: SettledRequest): JmapRequestResult {
  const { outcome } = sent;
  const { done, failures, vars } = outcome;
  const showRequest = plan.dryRun || plan.echo;
  const result: JmapRequestResult = {
    ok: failures.length === 0,
    summary: summaryOf(plan, sent),
    dryRun: plan.dryRun,
    failures: [...failures],
  };
  if (plan.presetName) result.preset = plan.presetName;
  if (plan.preset?.view) result.view = plan.preset.view;
  const only = done.length === 1 ? done[0] : undefined;
  if (only) {
    if (showRequest && only.request) result.request = only.request;
    if (only.response) result.response = only.response;
  } else {
    result.steps = done.map((step) => ({
      id: step.id,
      ...(step.summary ? { summary: step.summary } : {}),
      ...(showRequest && step.request ? { request: step.request } : {}),
      ...(step.response ? { response: step.response } : {}),
    }));
  }
  const created = done.flatMap((step) =>
    (step.response?.methodResponses ?? []).flatMap(([method, args]) =>
      method.endsWith('/set') || method === 'Blob/upload'
        ? recordsOf(args).map(({ creationId, id }) => ({ method, creationId, id }))
        : [],
    ),
  );
  if (created.length > 0) result.created = created;
  if (plan.preset?.excludeOwnMail && sent.own.length > 0) result.ownMailIds = [...sent.own];
  if (plan.preset?.view === 'message' || plan.preset?.view === 'thread')
    result.window = { offset: numberVar(vars.BODY_OFFSET, 0), maxChars: numberVar(vars.MAX_CHARS, 12_000) };
  if (settled.next.length > 0) result.next = [...settled.next];
  if (outcome.unresolved.size > 0) result.unresolved = [...outcome.unresolved].sort();
  const notes = [...settled.notes, ...outcome.notes];
  if (notes.length > 0) result.notes = notes;
  const untrusted = untrustedPaths(result);
  if (untrusted.length > 0) result.untrusted = untrusted;
  if (sent.attachments) result.attachments = sent.attachments;
  if (sent.waited) {
    const { cursor: _cursor, ...waited } = sent.waited;
    result.waited = waited;
  }
  return result;
}

function summaryOf(plan: RequestPlan, sent: SentRequest): string {
  const { done, unresolved } = sent.outcome;
  if (plan.dryRun)
    return (
      `DRY RUN: nothing was sent. ${done.length === 1 ? 'This is the request' : `These are the ${done.length} requests`} that would be sent.` +
      (unresolved.size > 0
        ? ` Unresolved here (filled at run time from the server or an earlier step): ${[...unresolved].map((n) => `$${n}`).join(', ')}.`
        : '')
    );
  // Steps with a `when` are alternatives, not skipped; a wait's looks are one step of their own.
  const skipped = sent.waited
    ? []
    : plan.steps.filter((s) => !done.some((d) => d.id === s.id) && !s.when).map((s) => s.id);
  const tail = skipped.length > 0 ? ` Not run: ${skipped.join(', ')}.` : '';
  if (done.length === 1) return `${done[0]?.summary ?? ''}${tail}`;
  const failed = done.find((step) => !/^OK:/.test(step.summary ?? ''));
  const parts = done.map((step) => `${step.id}: ${(step.summary ?? '').replace(/^(OK|FAILED|REFUSED): /, '')}`);
  return `${failed ? 'FAILED' : 'OK'}: ${parts.join(' | ')}${tail}`;
}

function numberVar(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : fallback;
}
