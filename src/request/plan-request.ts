import type { Account } from '../auth/account-registry.js';
import { authservIdOf } from '../config.js';
import { MailboxError, inputRef } from '../errors.js';
import type { ServiceGate } from '../gate/service-gate.js';
import { readCachedSession } from '../jmap/jmap-session.js';
import type { JmapSessionInfo } from '../jmap/jmap-types.js';
import { parseOps } from '../jmap/parse-ops.js';
import { checkAttachmentLimits, readAttachments, type LocalAttachment } from '../mail/prepare-attachments.js';
import { builtinVariableNames, builtinVariables } from '../presets/builtin-variables.js';
import { loadOpsFile } from '../presets/load-preset.js';
import type { Preset, PresetStep } from '../presets/preset-schema.js';
import { presetVariables } from '../presets/preset-variables.js';
import { variableNamePattern } from '../presets/substitute-variables.js';
import type { JmapRequestInput } from './jmap-request-types.js';
import { checkNamedFiles } from './guard/named-files.js';

/** What the plan stage settled before anything is sent; later stages return what they learn, never write here. */
export interface RequestPlan {
  readonly preset?: Preset;
  readonly presetName?: string;
  readonly steps: readonly PresetStep[];
  /** The caller's vars: they win over every other source, attachments included. */
  readonly given: Readonly<Record<string, unknown>>;
  /** The built-ins from the session, the saved cursor and the caller's vars. */
  readonly vars: Readonly<Record<string, unknown>>;
  /** In a dry run only what state.json knows, if anything. */
  readonly session: JmapSessionInfo | undefined;
  /** Files to attach, checked against the session's limits; the send stage uploads them. */
  readonly files: readonly LocalAttachment[];
  readonly dryRun: boolean;
  /** echo_request: show the substituted request(s). */
  readonly echo: boolean;
  /** A waiting preset (wait_for_mail) in a real run: the wait stage runs it instead of the send stage. */
  readonly waitsForMail: boolean;
  /** Whose Authentication-Results are trusted for sender verdicts (the setting, else the inbox domain). */
  readonly authservId: string;
}

/** The plan stage: steps, vars, session (none fetched in a dry run) and files, each refused here when wrong. */
export async function planRequest(account: Account, input: JmapRequestInput, gate: ServiceGate): Promise<RequestPlan> {
  await checkNamedFiles(account, input);
  const plan = await planJmapRequest(input);
  const dryRun = input.dry_run === true;
  const session = dryRun ? await readCachedSession(account) : await gate.session();
  checkRequires(plan.preset, plan.presetName, session);
  const vars: Record<string, unknown> = { ...(await builtinVariables(account, session)), ...plan.vars };
  const files = input.attachments?.length ? await readAttachments(input.attachments) : [];
  if (session) checkAttachmentLimits(files, session.limits);
  const cursor = plan.preset?.cursor;
  if (cursor && vars[cursor.variable] === undefined) {
    const saved = (await account.readState())[cursor.stateField];
    if (saved) vars[cursor.variable] = saved;
  }
  return {
    ...plan,
    given: plan.vars,
    vars,
    session,
    files,
    dryRun,
    echo: input.echo_request === true,
    waitsForMail: plan.preset?.wait !== undefined && !dryRun && session !== undefined,
    authservId: authservIdOf(await account.config()),
  };
}

/** What jmap_request will run: a preset's steps, or the caller's ops as one step, with the caller's vars. */
type JmapRequestPlan = Pick<RequestPlan, 'preset' | 'presetName' | 'steps' | 'vars'>;

type PlanInput = Pick<JmapRequestInput, 'ops' | 'ops_file' | 'vars' | 'attachments'>;

/** Checks the input's shape, loads the preset or parses the ops, and checks the caller's vars. */
export async function planJmapRequest(input: PlanInput): Promise<JmapRequestPlan> {
  if ((input.ops === undefined) === (input.ops_file === undefined))
    throw new MailboxError({
      code: 'invalid_input',
      message:
        input.ops === undefined
          ? `jmap_request needs ${inputRef('ops')} or ${inputRef('ops_file')}.`
          : `Give ${inputRef('ops')} or ${inputRef('ops_file')}, not both.`,
      hint: `Use ${inputRef('ops_file')} with a preset name (help topic "presets") or ${inputRef('ops')} with JMAP method calls (help topic "jmap").`,
      next: { operation: 'help', input: { topic: 'presets' } },
    });
  const given = varsObject(input.vars) ?? {};
  const badNames = Object.keys(given).filter((name) => !variableNamePattern.test(name));
  if (badNames.length > 0)
    throw new MailboxError({
      code: 'vars_invalid',
      message: `Variable names must be UPPER_SNAKE_CASE: ${badNames.map((n) => JSON.stringify(n)).join(', ')}.`,
      hint: 'Write names like TO, SUBJECT, MAIL_ID (without the $) in vars.',
    });
  const loaded = input.ops_file !== undefined ? await loadOpsFile(input.ops_file) : undefined;
  if (loaded?.kind === 'preset') {
    const { preset, name } = loaded;
    checkKnownVars(given, Object.keys(preset.variables), `preset ${name}`);
    if (preset.needsAttachments && !input.attachments?.length)
      throw new MailboxError({
        code: 'attachment_invalid',
        message: `Preset ${name} sends files given with ${inputRef('attachments')}, and none was given.`,
        hint: `Give each file's path with ${inputRef('attachments')}, or use send_mail for text only.`,
      });
    checkAttachmentsUsed(input, preset.steps, `preset ${name}`, given);
    return { preset, presetName: name, steps: preset.steps, vars: presetVariables(preset, name, given) };
  }
  const parsed = parseOps(
    loaded?.kind === 'ops' ? loaded.ops : input.ops,
    loaded?.kind === 'ops' ? loaded.path : 'ops',
  );
  const referenced = [...JSON.stringify(parsed.methodCalls).matchAll(/\$([A-Z][A-Z0-9_]*)/g)].map((m) => m[1] ?? '');
  checkKnownVars(given, referenced, 'these ops');
  const step: PresetStep = {
    id: 'request',
    methodCalls: parsed.methodCalls,
    ...(parsed.using ? { using: parsed.using } : {}),
  };
  checkAttachmentsUsed(input, [step], 'these ops', given);
  return { steps: [step], vars: { ...given } };
}

/** Files are uploaded to be referenced ($ATTACHMENTS, $ATTACHMENT_<i>_…): without, the mail would go without them. */
function checkAttachmentsUsed(
  input: PlanInput,
  steps: readonly PresetStep[],
  where: string,
  given: Readonly<Record<string, unknown>>,
): void {
  if (!input.attachments?.length) return;
  if (/\$ATTACHMENT(S\b|_\d+_)/.test(JSON.stringify(steps))) return;
  // The base64 preset's own vars (ATTACHMENT_BASE64, _NAME, _TYPE) have no place in the upload preset.
  const vars = Object.fromEntries(Object.entries(given).filter(([name]) => !name.startsWith('ATTACHMENT_')));
  const attachments = input.attachments;
  throw new MailboxError({
    code: 'attachment_invalid',
    message: `There is no $ATTACHMENTS placeholder in ${where}: the mail would go out without the files given with ${inputRef('attachments')}. Nothing was sent.`,
    hint: 'Send files with the send_mail_blob_attachment preset (same vars: TO, SUBJECT, BODY, CC), or reference $ATTACHMENTS in your own ops.',
    next: { operation: 'jmap_request', input: { ops_file: 'send_mail_blob_attachment', vars, attachments } },
  });
}

/** `vars` as given: an object, or (from hosts that send every argument as text) its JSON text. */
export function varsObject(vars: Record<string, unknown> | string | undefined): Record<string, unknown> | undefined {
  if (typeof vars !== 'string') return vars;
  let parsed: unknown;
  try {
    parsed = JSON.parse(vars);
  } catch (error) {
    throw new MailboxError({
      code: 'vars_invalid',
      message: `vars is not valid JSON: ${(error as Error).message}.`,
      hint: 'Pass vars as an object, e.g. {"TO": "bob@example.com", "SUBJECT": "Hi"}, or as that object\'s JSON text.',
      cause: error,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new MailboxError({
      code: 'vars_invalid',
      message: 'vars must be a JSON object of NAME: value pairs.',
      hint: 'Pass vars as an object, e.g. {"TO": "bob@example.com", "SUBJECT": "Hi"}.',
    });
  return parsed as Record<string, unknown>;
}

/** A var nobody reads is almost always a typo (SUBJET): refuse before anything is sent. */
function checkKnownVars(given: Readonly<Record<string, unknown>>, known: readonly string[], where: string): void {
  const accepted = new Set<string>([...known, ...builtinVariableNames]);
  const unknown = Object.keys(given).filter((name) => !accepted.has(name) && !/^ATTACHMENT_\d+_/.test(name));
  if (unknown.length === 0) return;
  const guesses = unknown.map((name) => {
    const close = known.find((k) => editDistance(k, name) <= 2);
    return close ? `${name} (did you mean ${close}?)` : name;
  });
  throw new MailboxError({
    code: 'vars_invalid',
    message: `Unknown vars for ${where}: ${guesses.join(', ')}.`,
    hint:
      known.length > 0
        ? `Use only: ${[...new Set(known)].join(', ')}.`
        : 'These ops use no $NAME placeholders; drop vars or add the placeholders.',
    next: { operation: 'help', input: { topic: 'presets' } },
  });
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] ?? 0;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

/** A preset that needs a capability this server lacks is refused before anything is sent. */
function checkRequires(
  preset: Preset | undefined,
  name: string | undefined,
  session: JmapSessionInfo | undefined,
): void {
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
