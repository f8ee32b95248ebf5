import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../../../src/gate/outgoing.js';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import { normaliseAddress, type NormalisedAddress } from '../../../../src/policy/address-matcher.js';
import { appendAudit, type AuditEntry } from '../../../../src/policy/records/audit-log.js';
import { isKnownRecipient, passedDmarcFor } from '../../../../src/request/guard/mail/known-recipients.js';
import { tempCredentialsDir } from '../../../helpers/temp-credentials-dir.js';

/**
 * The `known` send mode's lookups against a scripted mail store: the audit log first, then the Sent
 * mailbox, then mail from the address that passed DMARC at the service's own authserv-id.
 */

const ours = 'agent-mailbox.test';
const bob = normaliseAddress('Bob@Example.TEST') as NormalisedAddress;

interface Store {
  /** Email/get answer of the Sent lookup (to, cc, bcc). */
  sent: unknown[];
  /** Email/get answer of the from lookup (from, Authentication-Results fields). */
  from: unknown[];
  sentRole?: string;
  requests: JmapRequest[];
}

function context(store: Store): CheckContext {
  return {
    session: async () => ({ accountId: 'acc-1', mailboxIdsByRole: store.sentRole ? { sent: store.sentRole } : {} }),
    read: async (request: JmapRequest): Promise<JmapResponse> => {
      store.requests.push(request);
      const filter = JSON.stringify(request.methodCalls[0]?.[1]);
      const list = filter.includes('inMailbox') ? store.sent : store.from;
      return { methodResponses: [['Email/query', { ids: [] }, 'q'], ['Email/get', { list }, 'g']], sessionState: 's' } as unknown as JmapResponse;
    },
  } as Partial<CheckContext> as CheckContext;
}

async function known(store: Partial<Store>, audit: Array<Partial<AuditEntry>> = []): Promise<{ known: boolean; requests: JmapRequest[] }> {
  const stateDir = await tempCredentialsDir();
  for (const entry of audit) await appendAudit(stateDir, { at: '2026-01-01T00:00:00Z', door: 'cli', inbox: 'ada@agent-mailbox.test', verdict: 'sent', recipients: [], ...entry });
  const full: Store = { sent: [], from: [], requests: [], sentRole: 'mb-sent', ...store };
  return { known: await isKnownRecipient(bob, { stateDir, authservId: ours, context: context(full) }), requests: full.requests };
}

const passed = (domain = 'example.test'): string => `${ours}; spf=pass smtp.mailfrom=${domain}; dmarc=pass (p=reject) header.from=${domain}`;

describe('a known recipient', () => {
  it('is one this inbox sent or had approved mail to, in any case, without a lookup', async () => {
    for (const verdict of ['sent', 'approved'] as const) {
      const answer = await known({}, [{ verdict, recipients: ['someone@else.test', 'bob@example.test'] }]);
      expect(answer.known, verdict).toBe(true);
      expect(answer.requests).toEqual([]);
    }
  });

  it('is not one whose mail was refused, held, declined or discarded', async () => {
    const answer = await known({}, (['refused', 'held', 'declined', 'discarded'] as const).map((verdict) => ({ verdict, recipients: ['bob@example.test'] })));
    expect(answer.known).toBe(false);
  });

  it('is one a message in the Sent mailbox was addressed to, in To, Cc or Bcc', async () => {
    for (const field of ['to', 'cc', 'bcc']) {
      const answer = await known({ sent: [{ to: [{ email: 'x@y.test' }], [field]: [{ name: 'Bob', email: 'BOB@example.test' }] }] });
      expect(answer.known, field).toBe(true);
    }
    const { requests } = await known({ sent: [{ to: [{ email: 'bob@example.test' }] }] });
    expect(requests[0]?.methodCalls[0]?.[1]).toEqual({
      accountId: 'acc-1',
      filter: { operator: 'AND', conditions: [{ inMailbox: 'mb-sent' }, { operator: 'OR', conditions: [{ to: 'bob@example.test' }, { cc: 'bob@example.test' }, { bcc: 'bob@example.test' }] }] },
      limit: 25,
    });
  });

  it('is not one the Sent lookup returns mail for that names only others, or malformed entries', async () => {
    const answer = await known({ sent: [{ to: [{ email: 'bobby@example.test' }] }, null, 'x', { to: 'bob@example.test' }, { to: [{ email: 42 }] }, { to: [null] }] });
    expect(answer.known).toBe(false);
  });

  it('without a Sent mailbox, skips that lookup and asks for authenticated mail from the address', async () => {
    const answer = await known({ sentRole: undefined, from: [{ from: [{ email: 'bob@example.test' }], 'header:Authentication-Results:asText:all': [passed()] }] });
    expect(answer.known).toBe(true);
    expect(answer.requests).toHaveLength(1);
    expect(answer.requests[0]?.methodCalls[0]?.[1]).toEqual({ accountId: 'acc-1', filter: { from: 'bob@example.test' }, limit: 25 });
  });

  it('is one who wrote with a DMARC pass for the From domain, as the only author', async () => {
    expect((await known({ from: [{ from: [{ email: 'bob@example.test' }], 'header:Authentication-Results:asText:all': [7, passed()] }] })).known).toBe(true);
    expect((await known({ from: [{ from: [{ email: 'bob@example.test' }, { email: 'eve@example.test' }], 'header:Authentication-Results:asText:all': [passed()] }] })).known).toBe(false);
    expect((await known({ from: [{ from: [{ email: 'eve@example.test' }], 'header:Authentication-Results:asText:all': [passed()] }] })).known).toBe(false);
    expect((await known({ from: [{ from: [{ email: 'bob@example.test' }], 'header:Authentication-Results:asText:all': [passed('other.test')] }] })).known).toBe(false);
    expect((await known({ from: [{ from: [{ email: 'bob@example.test' }], 'header:Authentication-Results:asText:all': 'not a list' }] })).known).toBe(false);
    expect((await known({ from: [null, { from: 'bob@example.test' }] })).known).toBe(false);
  });
});

describe('passedDmarcFor', () => {
  it('reads results past comments that hold semicolons, and an authserv-id with a version, quotes, case or a final dot', () => {
    expect(passedDmarcFor([`${ours} (a; b=c); dmarc=pass (p=none; x) header.from=x.test`], ours, 'x.test')).toBe(true);
    expect(passedDmarcFor([`${ours} 1; dmarc=pass header.from=x.test`], ours, 'x.test')).toBe(true);
    expect(passedDmarcFor([`"${ours}"; dmarc=pass header.from=x.test`], ours, 'x.test')).toBe(true);
    expect(passedDmarcFor([`Agent-Mailbox.TEST.; DMARC=Pass header.from=X.test.`], `${ours}.`, 'x.test')).toBe(true);
    expect(passedDmarcFor([`${ours}; dmarc=pass header.from=x.test.evil`], ours, 'x.test')).toBe(false);
    // One verdict with the listings': a result naming no domain speaks for From, the one domain DMARC evaluates.
    expect(passedDmarcFor([`${ours}; dmarc=pass`], ours, 'x.test')).toBe(true);
    expect(passedDmarcFor([`${ours}; dmarc=fail header.from=x.test; dmarc=pass header.from=x.test`], ours, 'x.test')).toBe(false);
    expect(passedDmarcFor([], ours, 'x.test')).toBe(false);
  });

  it('does not let an escaped parenthesis end a comment early', () => {
    expect(passedDmarcFor([`${ours} (x\\); dmarc=pass header.from=x.test); dmarc=fail header.from=x.test`], ours, 'x.test')).toBe(false);
    // A stray ")" breaks RFC 8601's grammar: an unreadable field of ours is no pass.
    expect(passedDmarcFor([`${ours}; dmarc=pass header.from=x.test (closing) )`], ours, 'x.test')).toBe(false);
    expect(passedDmarcFor([`${ours}; dmarc=pass header.from=x.test (closing)`], ours, 'x.test')).toBe(true);
  });
});
