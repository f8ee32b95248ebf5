import type { Account } from '../auth/account-registry.js';
import { MailboxError } from '../errors.js';
import type { Logger } from '../log.js';
import { builtinVariables } from './builtin-variables.js';
import { captureVariables } from './capture-variables.js';
import { addTextFromHtml } from './html-to-text.js';
import { inferUsing } from './infer-using.js';
import { JmapClient } from './jmap-client.js';
import { readCachedSession } from './jmap-session.js';
import type { JmapRequest, JmapResponse, JmapSessionInfo } from './jmap-types.js';
import { loadOpsFile } from './load-preset.js';
import { parseOps } from './parse-ops.js';
import { attachmentVariables, checkAttachmentLimits, readAttachments } from './prepare-attachments.js';
import type { Preset, PresetStep } from './preset-schema.js';
import { presetVariables } from './preset-variables.js';
import { substituteVariables, variableNamePattern } from './substitute-variables.js';
import { lineOf, summarizeResponse, type JmapFailure } from './summarize-response.js';

export interface JmapRequestInput {
  ops?: string | unknown;
  ops_file?: string;
  vars?: Record<string, unknown>;
  attachments?: string[];
  dry_run?: boolean;
}

export interface JmapRequestContext {
  signal: AbortSignal;
  log: Logger;
  timeoutMs?: number;
  /** For tests: the HTTP implementation. */
  fetch?: typeof fetch;
}

/** One executed (or, in a dry run, shown) request of a preset. */
export interface JmapStepResult {
  id: string;
  request: JmapRequest;
  response?: JmapResponse;
}

// A type alias, not an interface: the operation's loose output schema needs an index-signature-compatible type.
export type JmapRequestResult = {
  ok: boolean;
  /** One line: what happened, or every failure with its fix. */
  summary: string;
  dryRun: boolean;
  preset?: string;
  /** The final request after substitution (the last step's, for multi-step presets). */
  request: JmapRequest;
  response?: JmapResponse;
  failures: JmapFailure[];
  next?: string[];
  /** Every step of a multi-step preset. */
  steps?: JmapStepResult[];
  /** Dry run: placeholders left unresolved. */
  unresolved?: string[];
  notes?: string[];
  attachments?: { name: string; type: string; size: number; blobId?: string }[];
};

// Above this a result strains an agent's context (hosts inline ~25k tokens); say how to narrow it.
const largeResponseChars = 100_000;

/** Runs jmap_request: ops or a preset, substituted, sent (unless dry run), summarised. */
export async function runJmapRequest(account: Account, input: JmapRequestInput, ctx: JmapRequestContext): Promise<JmapRequestResult> {
  if ((input.ops === undefined) === (input.ops_file === undefined)) {
    throw new MailboxError({
      code: 'invalid_input',
      message: input.ops === undefined ? 'jmap_request needs ops or ops_file.' : 'Give ops or ops_file, not both.',
      hint: 'Use ops_file with a preset name (help topic "presets") or ops with JMAP method calls (help topic "jmap").',
      next: { operation: 'help', input: { topic: 'presets' } },
    });
  }
  const given = input.vars ?? {};
  const badNames = Object.keys(given).filter((name) => !variableNamePattern.test(name));
  if (badNames.length > 0) {
    throw new MailboxError({
      code: 'vars_invalid',
      message: `Variable names must be UPPER_SNAKE_CASE: ${badNames.map((n) => JSON.stringify(n)).join(', ')}.`,
      hint: 'Write names like TO, SUBJECT, MAIL_ID (without the $) in vars.',
    });
  }

  const loaded = input.ops_file !== undefined ? await loadOpsFile(input.ops_file) : undefined;
  const preset: Preset | undefined = loaded?.kind === 'preset' ? loaded.preset : undefined;
  const presetName = loaded?.kind === 'preset' ? loaded.name : undefined;
  const steps: PresetStep[] = preset
    ? preset.steps
    : [{ id: 'request', ...toStep(parseOps(loaded?.kind === 'ops' ? loaded.ops : input.ops, loaded?.kind === 'ops' ? loaded.path : 'ops')) }];
  const vars = preset && presetName ? presetVariables(preset, presetName, given) : { ...given };

  if (preset?.needsAttachments && !input.attachments?.length) {
    throw new MailboxError({
      code: 'attachment_invalid',
      message: `Preset ${presetName} sends files given with attachments, and none was given.`,
      hint: 'Pass attachments: ["/path/to/file"] (CLI: --attachment PATH), or use send_mail for text only.',
    });
  }

  const isDryRun = input.dry_run === true;
  const client = new JmapClient(account, { log: ctx.log, timeoutMs: ctx.timeoutMs ?? 30_000, ...(ctx.fetch ? { fetch: ctx.fetch } : {}) });
  // A dry run makes no network call at all: only what state.json already knows.
  const session: JmapSessionInfo | undefined = isDryRun ? await readCachedSession(account) : await client.session({ signal: ctx.signal });
  checkRequires(preset, presetName, session);

  const notes: string[] = [];
  const builtins = await builtinVariables(account, session);
  const allVars: Record<string, unknown> = { ...builtins, ...vars };

  let attachmentSummary: JmapRequestResult['attachments'];
  if (input.attachments?.length) {
    const files = await readAttachments(input.attachments);
    if (session) checkAttachmentLimits(files, session.limits);
    const blobIds: (string | undefined)[] = [];
    for (const file of files) blobIds.push(isDryRun ? undefined : (await client.upload(file.bytes, file.type, { signal: ctx.signal })).blobId);
    Object.assign(allVars, attachmentVariables(files, blobIds), vars);
    attachmentSummary = files.map((f, i) => ({ name: f.name, type: f.type, size: f.size, ...(blobIds[i] ? { blobId: blobIds[i] } : {}) }));
  }

  const cursor = preset?.cursor;
  if (cursor && allVars[cursor.variable] === undefined) {
    const saved = (await account.readState())[cursor.stateField];
    if (saved) allVars[cursor.variable] = saved;
  }

  const done: JmapStepResult[] = [];
  const unresolved = new Set<string>();
  const failures: JmapFailure[] = [];
  let summary = '';
  for (const step of steps) {
    if (step.when?.defined && allVars[step.when.defined] === undefined) continue;
    if (step.when?.missing && allVars[step.when.missing] !== undefined) continue;
    const { value: methodCalls, missing } = substituteVariables(step.methodCalls, allVars, { keepMissing: isDryRun });
    missing.forEach((name) => unresolved.add(name));
    const request: JmapRequest = { using: inferUsing(methodCalls, session?.capabilities, step.using), methodCalls };
    checkCallCount(request, session);
    if (isDryRun) {
      done.push({ id: step.id, request });
      continue;
    }
    const response = await client.call(request, { signal: ctx.signal });
    done.push({ id: step.id, request, response });
    const outcome = summarizeResponse(request, response);
    summary = outcome.summaryLine;
    if (!outcome.ok) {
      failures.push(...outcome.failures);
      break;
    }
    const captureFailure = captureVariables(step, response, allVars);
    if (captureFailure) {
      failures.push(captureFailure);
      summary = `FAILED: ${lineOf(captureFailure)}`;
      break;
    }
  }

  const last = done[done.length - 1];
  if (!last) throw new MailboxError({ code: 'internal', message: 'No step of the preset applied.', hint: 'Report this preset as broken.' });
  const ok = failures.length === 0;
  const next = [...(preset?.next ?? [])];

  if (!isDryRun && cursor) {
    const resetNeeded = failures.some((f) => cursor.resetOn?.includes(f.type));
    const saved = allVars[cursor.saveFrom];
    if (resetNeeded) {
      await account.updateState((state) => ({ ...state, [cursor.stateField]: undefined }));
      next.unshift(`The saved ${presetName} cursor was too old and has been reset: run ${presetName} again to list recent mail.`);
    } else if (ok && typeof saved === 'string') {
      await account.updateState((state) => ({ ...state, [cursor.stateField]: saved }));
    }
  }
  if (!isDryRun && failures.some(isStaleSessionSymptom)) {
    // Ids from the cached session (account, mailboxes, identity) may be stale. Other calls of the
    // batch may have applied, so nothing is resent: refresh, and let the caller decide to rerun.
    await client.session({ signal: ctx.signal, refresh: true });
    next.unshift('The cached JMAP session was refreshed because an id from it was rejected: run the request again.');
  }
  if (!isDryRun && preset?.convertHtml && last.response) notes.push(...addTextFromHtml(last.response));
  if (last.response) {
    const size = JSON.stringify(last.response).length;
    if (size > largeResponseChars) {
      notes.push(`The response is ${Math.round(size / 1024)} KiB (complete, not truncated); narrow it next time with a smaller limit, fewer properties, or maxBodyValueBytes.`);
    }
  }
  if (isDryRun) {
    summary =
      `DRY RUN: nothing was sent. ${done.length === 1 ? 'This is the request' : `These are the ${done.length} requests`} that would be sent.` +
      (unresolved.size > 0 ? ` Unresolved here (filled at run time from the server or an earlier step): ${[...unresolved].map((n) => `$${n}`).join(', ')}.` : '');
  }

  const result: JmapRequestResult = { ok, summary, dryRun: isDryRun, request: last.request, failures };
  if (presetName) result.preset = presetName;
  if (last.response) result.response = last.response;
  const serverNext = last.response?._next;
  if (serverNext) next.push(...serverNext);
  if (next.length > 0) result.next = next;
  if (steps.length > 1) result.steps = done;
  if (unresolved.size > 0) result.unresolved = [...unresolved].sort();
  if (notes.length > 0) result.notes = notes;
  if (attachmentSummary) result.attachments = attachmentSummary;
  return result;
}

function toStep(parsed: ReturnType<typeof parseOps>): Pick<PresetStep, 'methodCalls' | 'using'> {
  return parsed.using ? { methodCalls: parsed.methodCalls, using: parsed.using } : { methodCalls: parsed.methodCalls };
}

function isStaleSessionSymptom(failure: JmapFailure): boolean {
  if (failure.type === 'accountNotFound') return true;
  return failure.type === 'invalidProperties' && (failure.properties ?? []).some((p) => p.startsWith('mailboxIds') || p === 'identityId');
}

function checkRequires(preset: Preset | undefined, name: string | undefined, session: JmapSessionInfo | undefined): void {
  const lacking = (preset?.requires ?? []).filter((urn) => session && !session.capabilities.includes(urn));
  if (lacking.length === 0) return;
  throw new MailboxError({
    code: 'jmap_request_error',
    message: `Preset ${name} needs ${lacking.join(', ')}, which this JMAP server does not offer.`,
    hint: lacking.some((u) => u.endsWith(':blob'))
      ? 'Use send_mail_blob_attachment with attachments (files are uploaded to uploadUrl) instead.'
      : 'This server cannot do what the preset needs; ask the operator which service this inbox is on.',
  });
}

function checkCallCount(request: JmapRequest, session: JmapSessionInfo | undefined): void {
  const max = session?.limits.maxCallsInRequest;
  if (max !== undefined && request.methodCalls.length > max) {
    throw new MailboxError({
      code: 'ops_invalid',
      message: `The request has ${request.methodCalls.length} method calls; the server accepts ${max} (maxCallsInRequest).`,
      hint: 'Split the calls over several jmap_request runs.',
    });
  }
}
