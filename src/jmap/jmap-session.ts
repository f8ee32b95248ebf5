import * as z from 'zod';
import type { Account } from '../auth/account-registry.js';
import type { Config } from '../config.js';
import { deepFreeze } from '../deep-freeze.js';
import { MailboxError, settingRef } from '../errors.js';
import type { HttpResponse } from '../http/http-types.js';
import { isOriginAllowed, originOfTemplate } from '../http/origin-rule.js';
import { jmapCapabilities } from '../wire-constants.js';
import {
  jmapResponseSchema,
  jmapSessionInfoSchema,
  sessionResourceSchema,
  type Invocation,
  type JmapLimits,
  type JmapRequest,
  type JmapResponse,
  type JmapSessionInfo,
} from './jmap-types.js';
import { resolveInboxAddress } from './resolve-inbox-address.js';

/** Checked sessions by state.json entry: an unchanged file gives the same frozen entry, so each is checked once. */
const checkedSessions = new WeakMap<object, JmapSessionInfo | undefined>();

/** The cached session of state.json, or undefined when absent or written by an older client. */
export async function readCachedSession(account: Account): Promise<JmapSessionInfo | undefined> {
  const { session } = await account.readState();
  if (session === undefined) return undefined;
  if (checkedSessions.has(session)) return checkedSessions.get(session);
  const parsed = jmapSessionInfoSchema.safeParse(session);
  const info = parsed.success ? deepFreeze(parsed.data) : undefined;
  checkedSessions.set(session, info);
  return info;
}

interface FetchSessionDeps {
  sessionUrl: string;
  account: Account;
  config: Config;
  get(url: string): Promise<HttpResponse>;
  post(apiUrl: string, request: JmapRequest): Promise<JmapResponse>;
}

const mailboxGetSchema = z.object({
  list: z.array(z.looseObject({ id: z.string(), role: z.string().nullable().optional(), name: z.string().optional() })),
});

/** Names mail clients give a Sent folder that carries no role (older IMAP stores, hand-made folders). */
const sentFolderNames = /^(sent|sent items|sent messages|sent mail)$/i;
const identityGetSchema = z.object({ list: z.array(z.looseObject({ id: z.string(), email: z.string() })) });

/** GETs the session (Cyrus answers 301), resolves its URLs against the final URL, reads role mailboxes and identity. */
export async function fetchSessionInfo(deps: FetchSessionDeps): Promise<JmapSessionInfo> {
  const response = await deps.get(deps.sessionUrl);
  const finalUrl = response.url || deps.sessionUrl;
  let body: unknown;
  try {
    body = response.json();
  } catch {
    throw sessionError('its body is not JSON');
  }
  const parsed = sessionResourceSchema.safeParse(body);
  if (!parsed.success)
    throw sessionError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const session = parsed.data;
  const accountId = session.primaryAccounts[jmapCapabilities.mail];
  if (!accountId) throw sessionError(`primaryAccounts has no ${jmapCapabilities.mail} entry`);

  const capabilities = Object.keys(session.capabilities);
  const accountCapabilities = Object.keys(session.accounts[accountId]?.accountCapabilities ?? {});
  const info: JmapSessionInfo = {
    sessionUrl: deps.sessionUrl,
    apiUrl: resolveSessionUrl(session.apiUrl, finalUrl),
    uploadUrl: resolveSessionUrl(session.uploadUrl, finalUrl),
    downloadUrl: resolveSessionUrl(session.downloadUrl, finalUrl),
    ...(session.eventSourceUrl ? { eventSourceUrl: resolveSessionUrl(session.eventSourceUrl, finalUrl) } : {}),
    accountId,
    capabilities,
    accountCapabilities,
    limits: limitsOf(session.capabilities, session.accounts[accountId]?.accountCapabilities ?? {}),
    ...(session.state ? { sessionState: session.state } : {}),
    mailboxIdsByRole: {},
    fetchedAt: new Date().toISOString(),
  };
  assertSessionOrigins(info, deps.config.allowedOrigins);

  const canSubmit =
    capabilities.includes(jmapCapabilities.submission) &&
    (accountCapabilities.length === 0 || accountCapabilities.includes(jmapCapabilities.submission));
  const request: JmapRequest = {
    using: [jmapCapabilities.core, jmapCapabilities.mail, ...(canSubmit ? [jmapCapabilities.submission] : [])],
    methodCalls: [
      ['Mailbox/get', { accountId, ids: null, properties: ['id', 'role', 'name'] }, 'mailboxes'],
      ...(canSubmit ? [['Identity/get', { accountId, ids: null }, 'identities'] as Invocation] : []),
    ],
  };
  const answer = jmapResponseSchema.parse(await deps.post(info.apiUrl, request));
  for (const [name, args, callId] of answer.methodResponses) {
    if (callId === 'mailboxes' && name === 'Mailbox/get') {
      const mailboxes = mailboxGetSchema.parse(args).list;
      for (const mailbox of mailboxes) if (mailbox.role) info.mailboxIdsByRole[mailbox.role] = mailbox.id;
      // $SENT_MAILBOX_ID: the role first, else a folder named like one (list_sent says when neither exists).
      const namedSent = mailboxes.find((m) => !m.role && m.name !== undefined && sentFolderNames.test(m.name.trim()));
      if (!info.mailboxIdsByRole.sent && namedSent) info.mailboxIdsByRole.sent = namedSent.id;
    } else if (callId === 'identities' && name === 'Identity/get') {
      const identities = identityGetSchema.parse(args).list;
      const { inboxId } = await deps.account.inbox();
      const { address } = resolveInboxAddress({
        storedInboxId: inboxId,
        sessionAccountId: accountId,
        ...(deps.config.sources.inboxDomain !== 'default' ? { configuredDomain: deps.config.inboxDomain } : {}),
      });
      // Cyrus 3.6 requires the identity whose address is the inbox's own (jmap.md).
      const match = identities.find((i) => i.email.toLowerCase() === address.toLowerCase()) ?? identities[0];
      if (match) info.identityId = match.id;
    } else if (name === 'error') throw sessionError(`the mailbox/identity lookup failed: ${JSON.stringify(args)}`);
  }
  if (info.mailboxIdsByRole.inbox) info.inboxMailboxId = info.mailboxIdsByRole.inbox;
  return info;
}

const sessionUrlFields = ['apiUrl', 'uploadUrl', 'downloadUrl', 'eventSourceUrl'] as const;

type SessionUrls = Pick<JmapSessionInfo, 'sessionUrl' | (typeof sessionUrlFields)[number]>;

/** The session's URLs that lead off the session's own origin to one the operator did not allow. */
export function foreignSessionUrls(info: SessionUrls, allowed: readonly string[]): { field: string; origin: string }[] {
  const own = originOfTemplate(info.sessionUrl) ?? '';
  return sessionUrlFields.flatMap((field) => {
    const url = info[field];
    if (url === undefined || isOriginAllowed(url, own, allowed)) return [];
    return [{ field, origin: originOfTemplate(url) ?? 'a host a template placeholder would choose' }];
  });
}

/** Requests to these URLs carry the inbox's token: a session naming another origin would hand it over. */
export function assertSessionOrigins(info: SessionUrls, allowed: readonly string[]): void {
  const foreign = foreignSessionUrls(info, allowed);
  if (foreign.length === 0) return;
  const own = originOfTemplate(info.sessionUrl) ?? info.sessionUrl;
  throw new MailboxError({
    code: 'bad_response',
    message: `The JMAP session at ${own} names another origin for ${foreign.map((f) => `${f.field} (${f.origin})`).join(', ')}; credentials go only to the configured origins, so the session was not used and nothing was sent there.`,
    hint: `Check ${settingRef('apiUrl')}. If that origin really belongs to your mail service, the operator allows it with ${settingRef('allowedOrigins')}.`,
    details: { session: own, foreign },
  });
}

/** Resolves a session URL (template) against the session's URL; only the prefix, as the parser would encode `{}`. */
export function resolveSessionUrl(value: string, base: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return value;
  const baseUrl = new URL(base);
  if (value.startsWith('//')) return `${baseUrl.protocol}${value}`;
  if (value.startsWith('/')) return `${baseUrl.origin}${value}`;
  return `${new URL('.', baseUrl).href}${value}`;
}

/** Expands an RFC 6570 level-1 template such as `/download/{accountId}/{blobId}/{name}?accept={type}`. */
export function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) =>
    values[key] === undefined ? whole : encodeURIComponent(values[key]),
  );
}

function limitsOf(capabilities: Record<string, unknown>, accountCapabilities: Record<string, unknown>): JmapLimits {
  const core = capabilities[jmapCapabilities.core];
  const mail = accountCapabilities[jmapCapabilities.mail] ?? capabilities[jmapCapabilities.mail];
  const blob = accountCapabilities[jmapCapabilities.blob] ?? capabilities[jmapCapabilities.blob];
  const sources = {
    maxSizeUpload: core,
    maxSizeRequest: core,
    maxCallsInRequest: core,
    maxSizeAttachmentsPerEmail: mail,
    maxSizeBlobSet: blob,
  };
  // Only a positive number is a limit: null (no client-side cap, spec §2.6) is simply absent here.
  return Object.fromEntries(
    Object.entries(sources).flatMap(([key, source]) => {
      const value = source && typeof source === 'object' ? (source as Record<string, unknown>)[key] : undefined;
      return typeof value === 'number' && value > 0 ? [[key, value]] : [];
    }),
  );
}

function sessionError(detail: string): MailboxError {
  return new MailboxError({
    code: 'bad_response',
    message: `The JMAP session could not be used: ${detail}.`,
    hint: `Check that ${settingRef('apiUrl')} is the JMAP host (session at /.well-known/jmap), then retry.`,
  });
}
