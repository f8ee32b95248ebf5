import type { ServiceGate } from '../gate/service-gate.js';
import {
  assessMail,
  htmlPartIds,
  previewHtmlBytes,
  type AssessOptions,
  type MailTrust,
  withPreparedBody,
  previewFactsCache,
} from '../present/assess-mail.js';
import { prepareHtmlToText } from '../present/html-to-text.js';
import { lastEmailList, responsesOf } from '../present/present-jmap-result.js';
import { authenticationResultsProperty } from '../trust/sender-authentication.js';
import type { JmapResponse } from '../jmap/jmap-types.js';
import { jmapCapabilities } from '../wire-constants.js';
import type { JmapRequestResult } from './jmap-request-types.js';
import type { RequestPlan } from './plan-request.js';

/** HTML bodies fetched per request for listing previews: a page of big newsletters stays well under the answer cap. */
const htmlPerRequest = 40;

/**
 * The present stage's last part, for mail views: what the receive rules held back, and per message its
 * sender's authentication, a claiming display name, its hidden text; the raw fields read leave copies.
 */
export async function assessRequest(
  presented: Readonly<JmapRequestResult>,
  plan: RequestPlan,
  gate: ServiceGate,
): Promise<JmapRequestResult> {
  // Presenting reads HTML mail as text: the converter loads here, when an answer holds HTML, not in an earlier stage.
  await prepareHtmlToText(responsesOf(presented));
  const held = gate.screen.report();
  const result = held ? { ...presented, held } : presented;
  const view = result.view;
  if (result.dryRun || !view) return result;
  const emails = lastEmailList(responsesOf(result)) ?? [];
  const showHidden = plan.vars.SHOW_HIDDEN === true || plan.vars.SHOW_HIDDEN === 'true';
  const previews = view === 'listing' && emails.length > 0 ? await previewsOf(gate) : undefined;
  const trust = await assessMail(emails, {
    authservId: plan.authservId,
    ...(typeof plan.vars.INBOX === 'string' ? { inbox: plan.vars.INBOX } : {}),
    view,
    fetchHtml: (ids) => fetchPreviewHtml(ids, gate),
    showHidden,
    ...(held?.shownToOperator ? { held: new Set(held.shownToOperator) } : {}),
    ...(previews ? { previews } : {}),
  });
  const assessed = Object.keys(trust).length > 0;
  const untrusted = assessed
    ? [...new Set([...(result.untrusted ?? []), ...untrustedTrustPaths(trust)])].sort()
    : result.untrusted;
  return {
    ...result,
    ...(showHidden && view !== 'listing' ? { showHidden: true } : {}),
    ...(assessed ? { trust } : {}),
    ...(untrusted
      ? {
          untrusted: untrusted.filter(
            (path) =>
              !path.includes(authenticationResultsProperty) && !(view !== 'message' && path.includes('.htmlBody')),
          ),
        }
      : {}),
    ...(result.response ? { response: withoutRawFields(result.response, view) } : {}),
    ...(result.steps
      ? { steps: result.steps.map((s) => (s.response ? { ...s, response: withoutRawFields(s.response, view) } : s)) }
      : {}),
  };
}

/** A copy without what only the assessment reads: Authentication-Results, and but for one message the HTML parts. */
function withoutRawFields(response: JmapResponse, view: NonNullable<JmapRequestResult['view']>): JmapResponse {
  const dropped = new Set([authenticationResultsProperty, ...(view === 'message' ? [] : ['htmlBody'])]);
  return {
    ...response,
    methodResponses: response.methodResponses.map(([name, args, callId]) =>
      name === 'Email/get' && Array.isArray(args.list)
        ? [
            name,
            {
              ...args,
              list: (args.list as Record<string, unknown>[]).map((email) =>
                withPreparedBody(email, Object.fromEntries(Object.entries(email).filter(([key]) => !dropped.has(key)))),
              ),
            },
            callId,
          ]
        : [name, args, callId],
    ),
  };
}

/** The process's listing previews, kept per account of a service: an email id means nothing outside its account. */
async function previewsOf(gate: ServiceGate): Promise<NonNullable<AssessOptions['previews']>> {
  const { apiUrl, accountId } = await gate.session();
  return { cache: previewFactsCache, scope: JSON.stringify([apiUrl, accountId]) };
}

/** The HTML parts of listed messages, each cut at previewHtmlBytes by the server (isTruncated says so). */
async function fetchPreviewHtml(
  ids: string[],
  gate: ServiceGate,
): Promise<Map<string, { html: string; isTruncated: boolean }>> {
  const { accountId } = await gate.session();
  const out = new Map<string, { html: string; isTruncated: boolean }>();
  for (let at = 0; at < ids.length; at += htmlPerRequest) {
    const response = await gate.call({
      using: [jmapCapabilities.core, jmapCapabilities.mail],
      methodCalls: [
        [
          'Email/get',
          {
            accountId,
            ids: ids.slice(at, at + htmlPerRequest),
            properties: ['id', 'htmlBody', 'bodyValues'],
            bodyProperties: ['partId', 'type'],
            fetchHTMLBodyValues: true,
            maxBodyValueBytes: previewHtmlBytes,
          },
          'html',
        ],
      ],
    });
    const list = response.methodResponses.find(([name, , id]) => name === 'Email/get' && id === 'html')?.[1].list;
    for (const email of Array.isArray(list) ? (list as Record<string, unknown>[]) : []) {
      const values = (email.bodyValues ?? {}) as Record<string, { value?: unknown; isTruncated?: unknown }>;
      const html = htmlPartIds(email).map((partId) => values[partId]);
      if (typeof email.id !== 'string' || html.length === 0) continue;
      out.set(email.id, {
        html: html.map((v) => (typeof v?.value === 'string' ? v.value : '')).join('\n'),
        isTruncated: html.some((v) => v?.isTruncated === true),
      });
    }
  }
  return out;
}

/** Values in the assessment that come from the mail: previews, claimed names, what senders put in the checked fields. */
function untrustedTrustPaths(trust: Record<string, MailTrust>): string[] {
  const paths = new Set<string>();
  for (const entry of Object.values(trust)) {
    if (entry.preview !== undefined) paths.add('trust.*.preview');
    if (entry.nameClaim !== undefined) paths.add('trust.*.nameClaim');
    if (entry.sender?.results?.length)
      paths.add('trust.*.sender.results[*].properties.*').add('trust.*.sender.results[*].reason');
    if (entry.sender?.reason !== undefined) paths.add('trust.*.sender.reason');
  }
  return [...paths];
}
