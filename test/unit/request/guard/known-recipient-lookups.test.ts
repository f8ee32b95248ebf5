import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../../../src/gate/outgoing.js';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import { normaliseAddress, type NormalisedAddress } from '../../../../src/policy/address-matcher.js';
import { appendAudit, type AuditEntry } from '../../../../src/policy/records/audit-log.js';
import { recordCreatedMail } from '../../../../src/policy/records/created-mail.js';
import { isKnownRecipient } from '../../../../src/request/guard/mail/known-recipients.js';
import { judgeDomain } from '../../../../src/trust/sender-authentication.js';
import { tempCredentialsDir } from '../../../helpers/temp-credentials-dir.js';

/**
 * The `known` send mode's lookups against a scripted mail store: the audit log first, then the
 * service's submissions, then mail from the address that passed DMARC at the service's own
 * authserv-id, skipping mail this tool wrote itself. What lies in Sent never counts.
 */

const ours = 'agent-mailbox.test';
const bob = normaliseAddress('Bob@Example.TEST') as NormalisedAddress;

interface Store {
  /** EmailSubmission/get answer (envelope, undoStatus). */
  submissions: unknown[];
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
      if (request.methodCalls[0]?.[0] === 'EmailSubmission/query')
        return {
          methodResponses: [
            ['EmailSubmission/query', { ids: [] }, 'q'],
            ['EmailSubmission/get', { list: store.submissions }, 'g'],
          ],
          sessionState: 's',
        } as unknown as JmapResponse;
      return {
        methodResponses: [
          ['Email/query', { ids: [] }, 'q'],
          ['Email/get', { list: store.from }, 'g'],
        ],
        sessionState: 's',
      } as unknown as JmapResponse;
    },
  } as Partial<CheckContext> as CheckContext;
}

async function known(
  store: Partial<Store>,
  audit: Array<Partial<AuditEntry>> = [],
  createdByTool: string[] = [],
): Promise<{ known: boolean; requests: JmapRequest[] }> {
  const stateDir = await tempCredentialsDir();
  await recordCreatedMail(stateDir, createdByTool);
  for (const entry of audit)
    await appendAudit(stateDir, {
      at: '2026-01-01T00:00:00Z',
      door: 'cli',
      inbox: 'ada@agent-mailbox.test',
      verdict: 'sent',
      recipients: [],
      ...entry,
    });
  const full: Store = { submissions: [], from: [], requests: [], sentRole: 'mb-sent', ...store };
  return {
    known: await isKnownRecipient(bob, { stateDir, authservId: ours, context: context(full) }),
    requests: full.requests,
  };
}

const passed = (domain = 'example.test'): string =>
  `${ours}; spf=pass smtp.mailfrom=${domain}; dmarc=pass (p=reject) header.from=${domain}`;

describe('a known recipient', () => {
  it('is one this inbox sent or had approved mail to, in any case, without a lookup', async () => {
    for (const verdict of ['sent', 'approved'] as const) {
      const answer = await known({}, [{ verdict, recipients: ['someone@else.test', 'bob@example.test'] }]);
      expect(answer.known, verdict).toBe(true);
      expect(answer.requests).toEqual([]);
    }
  });

  it('is not one whose mail was refused, held, declined or discarded', async () => {
    const answer = await known(
      {},
      (['refused', 'held', 'declined', 'discarded'] as const).map((verdict) => ({
        verdict,
        recipients: ['bob@example.test'],
      })),
    );
    expect(answer.known).toBe(false);
  });

  it('is one a final submission of the service sent to, whoever made it; what lies in Sent proves nothing', async () => {
    const answer = await known({
      submissions: [
        {
          undoStatus: 'final',
          envelope: {
            mailFrom: { email: 'ada@agent-mailbox.test' },
            rcptTo: [{ email: 'x@y.test' }, { email: 'BOB@example.test' }],
          },
        },
      ],
    });
    expect(answer.known).toBe(true);
    expect(answer.requests[0]?.methodCalls[0]).toEqual([
      'EmailSubmission/query',
      { accountId: 'acc-1', sort: [{ property: 'sentAt', isAscending: false }], limit: 100 },
      'q',
    ]);
    // The lookup never asks about a mailbox's content.
    expect(JSON.stringify((await known({})).requests)).not.toContain('inMailbox');
  });

  it('is not one a cancelled, pending or malformed submission names', async () => {
    for (const submission of [
      { undoStatus: 'canceled', envelope: { rcptTo: [{ email: 'bob@example.test' }] } },
      { undoStatus: 'pending', envelope: { rcptTo: [{ email: 'bob@example.test' }] } },
      { undoStatus: 'final', envelope: { rcptTo: [{ email: 'bobby@example.test' }] } },
      null,
      'x',
    ]) {
      expect((await known({ submissions: [submission] })).known, JSON.stringify(submission)).toBe(false);
    }
  });

  it('asks for authenticated mail from the address once no submission names it', async () => {
    const answer = await known({
      from: [
        { id: 'M1', from: [{ email: 'bob@example.test' }], 'header:Authentication-Results:asText:all': [passed()] },
      ],
    });
    expect(answer.known).toBe(true);
    expect(answer.requests).toHaveLength(2);
    expect(answer.requests[1]?.methodCalls[0]?.[1]).toEqual({
      accountId: 'acc-1',
      filter: { from: 'bob@example.test' },
      limit: 25,
    });
  });

  it('is not one whose only authenticated-looking mail this tool created, imported or copied itself, or that has no id', async () => {
    const mail = {
      id: 'M7',
      from: [{ email: 'bob@example.test' }],
      'header:Authentication-Results:asText:all': [passed()],
    };
    expect((await known({ from: [mail] }, [], ['M3', 'M7'])).known).toBe(false);
    expect((await known({ from: [{ ...mail, id: undefined }] })).known).toBe(false);
    expect((await known({ from: [mail, { ...mail, id: 'M8' }] }, [], ['M7'])).known).toBe(true);
  });

  it('is one who wrote with a DMARC pass for the From domain, as the only author', async () => {
    expect(
      (
        await known({
          from: [
            {
              id: 'M1',
              from: [{ email: 'bob@example.test' }],
              'header:Authentication-Results:asText:all': [7, passed()],
            },
          ],
        })
      ).known,
    ).toBe(true);
    expect(
      (
        await known({
          from: [
            {
              id: 'M1',
              from: [{ email: 'bob@example.test' }, { email: 'eve@example.test' }],
              'header:Authentication-Results:asText:all': [passed()],
            },
          ],
        })
      ).known,
    ).toBe(false);
    expect(
      (
        await known({
          from: [
            { id: 'M1', from: [{ email: 'eve@example.test' }], 'header:Authentication-Results:asText:all': [passed()] },
          ],
        })
      ).known,
    ).toBe(false);
    expect(
      (
        await known({
          from: [
            {
              id: 'M1',
              from: [{ email: 'bob@example.test' }],
              'header:Authentication-Results:asText:all': [passed('other.test')],
            },
          ],
        })
      ).known,
    ).toBe(false);
    expect(
      (
        await known({
          from: [
            {
              id: 'M1',
              from: [{ email: 'bob@example.test' }],
              'header:Authentication-Results:asText:all': 'not a list',
            },
          ],
        })
      ).known,
    ).toBe(false);
    expect((await known({ from: [null, { from: 'bob@example.test' }] })).known).toBe(false);
  });
});

describe('a DMARC pass for the known mode (judgeDomain)', () => {
  const passedDmarcFor = (fields: string[], authservId: string, domain: string) =>
    judgeDomain(fields, authservId, domain).authenticated;
  it('reads results past comments that hold semicolons, and an authserv-id with a version, quotes, case or a final dot', () => {
    expect(passedDmarcFor([`${ours} (a; b=c); dmarc=pass (p=none; x) header.from=x.test`], ours, 'x.test')).toBe(true);
    expect(passedDmarcFor([`${ours} 1; dmarc=pass header.from=x.test`], ours, 'x.test')).toBe(true);
    expect(passedDmarcFor([`"${ours}"; dmarc=pass header.from=x.test`], ours, 'x.test')).toBe(true);
    expect(passedDmarcFor([`Agent-Mailbox.TEST.; DMARC=Pass header.from=X.test.`], `${ours}.`, 'x.test')).toBe(true);
    expect(passedDmarcFor([`${ours}; dmarc=pass header.from=x.test.evil`], ours, 'x.test')).toBe(false);
    // One verdict with the listings': a result naming no domain speaks for From, the one domain DMARC evaluates.
    expect(passedDmarcFor([`${ours}; dmarc=pass`], ours, 'x.test')).toBe(true);
    expect(
      passedDmarcFor([`${ours}; dmarc=fail header.from=x.test; dmarc=pass header.from=x.test`], ours, 'x.test'),
    ).toBe(false);
    expect(passedDmarcFor([], ours, 'x.test')).toBe(false);
  });

  it('does not let an escaped parenthesis end a comment early', () => {
    expect(
      passedDmarcFor([`${ours} (x\\); dmarc=pass header.from=x.test); dmarc=fail header.from=x.test`], ours, 'x.test'),
    ).toBe(false);
    // A stray ")" breaks RFC 8601's grammar: an unreadable field of ours is no pass.
    expect(passedDmarcFor([`${ours}; dmarc=pass header.from=x.test (closing) )`], ours, 'x.test')).toBe(false);
    expect(passedDmarcFor([`${ours}; dmarc=pass header.from=x.test (closing)`], ours, 'x.test')).toBe(true);
  });
});
