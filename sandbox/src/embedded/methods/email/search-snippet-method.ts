import { z } from 'zod';
import { jmapCapabilities } from '../../../wire-constants.js';
import { FactsCache, checkQuery, matchesFilter, type Filter } from '../../query/email-query.js';
import { jmapLimits } from '../../protocol/jmap-limits.js';
import { checkObjectLimit, parseArgs, type MethodDefinition } from '../method-context.js';

const args = z.object({
  accountId: z.string().optional(),
  filter: z
    .custom<Filter>((value) => typeof value === 'object' && value !== null)
    .nullable()
    .optional(),
  emailIds: z.array(z.string()),
});

/** SearchSnippet/get (RFC 8621 §5): subject and preview with `<mark>` around the searched terms. */
export const searchSnippetMethods: Record<string, MethodDefinition> = {
  'SearchSnippet/get': {
    capability: jmapCapabilities.mail,
    async run(rawArgs, ctx) {
      const input = parseArgs(args, rawArgs);
      checkQuery(input.filter, undefined);
      checkObjectLimit(input.emailIds.length, jmapLimits.maxObjectsInGet, 'maxObjectsInGet');
      const terms = input.filter ? searchTerms(input.filter) : { subject: [], body: [] };
      const facts = new FactsCache(ctx.account);
      const list: Record<string, unknown>[] = [];
      const notFound: string[] = [];
      for (const emailId of input.emailIds) {
        const email = ctx.account.emails.get(emailId);
        if (!email) {
          notFound.push(emailId);
          continue;
        }
        const isMatch = !input.filter || (await matchesFilter(ctx.account, email, input.filter, facts));
        const emailFacts = await facts.get(emailId);
        list.push({
          emailId,
          subject: isMatch ? highlight(emailFacts.subject ?? '', terms.subject, false) : null,
          preview: isMatch ? highlight(emailFacts.bodyText, terms.body, true) : null,
        });
      }
      return { response: { accountId: ctx.account.address, list, notFound } };
    },
  },
};

function searchTerms(filter: Filter): { subject: string[]; body: string[] } {
  const out = { subject: [] as string[], body: [] as string[] };
  const walk = (node: Filter, isNegated: boolean): void => {
    if ('operator' in node && Array.isArray(node['conditions'])) {
      for (const child of node['conditions'] as Filter[]) walk(child, isNegated || node.operator === 'NOT');
      return;
    }
    if (isNegated) return;
    const record = node as Record<string, unknown>;
    for (const key of ['text', 'subject'] as const) if (typeof record[key] === 'string') out.subject.push(record[key]);
    for (const key of ['text', 'body'] as const) if (typeof record[key] === 'string') out.body.push(record[key]);
  };
  walk(filter, false);
  return out;
}

function highlight(text: string, terms: string[], isExcerpt: boolean): string | null {
  const lower = text.toLowerCase();
  const hits = terms
    .map((term) => ({ term, at: lower.indexOf(term.toLowerCase()) }))
    .filter((hit) => hit.term && hit.at >= 0);
  if (!hits.length) return isExcerpt ? null : escapeHtml(text) || null;
  let source = text.replace(/\s+/g, ' ');
  if (isExcerpt) {
    const first = Math.min(
      ...hits.map((hit) => source.toLowerCase().indexOf(hit.term.toLowerCase())).filter((at) => at >= 0),
    );
    source = source.slice(Math.max(0, first - 60), first + 190);
  }
  const pattern = new RegExp(hits.map((hit) => hit.term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
  let out = '';
  let last = 0;
  for (const match of source.matchAll(pattern)) {
    out += `${escapeHtml(source.slice(last, match.index))}<mark>${escapeHtml(match[0])}</mark>`;
    last = match.index + match[0].length;
  }
  return out + escapeHtml(source.slice(last));
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
