import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../../../src/gate/outgoing.js';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import { normaliseAddress, type NormalisedAddress } from '../../../../src/policy/address-matcher.js';
import { appendAudit } from '../../../../src/policy/records/audit-log.js';
import { isKnownRecipient } from '../../../../src/request/guard/mail/known-recipients.js';
import { judgeDomain } from '../../../../src/trust/sender-authentication.js';
import { tempCredentialsDir } from '../../../helpers/temp-credentials-dir.js';

/**
 * The `known` mode's two lookups as the server receives them (a wrong capability, back-reference or
 * property list would make a real server answer an error or nothing, and the address would never
 * become known), answers that are not what was asked, and the parsing of Authentication-Results
 * fields at the edges RFC 8601 allows: comments with escapes, quoted ids, tabs, trailing dots.
 */

const ours = 'agent-mailbox.test';
const bob = normaliseAddress('bob@example.test') as NormalisedAddress;

function context(answer: (request: JmapRequest) => unknown[], requests: JmapRequest[]): CheckContext {
  return {
    session: async () => ({ accountId: 'acc-1', mailboxIdsByRole: { sent: 'mb-sent' } }),
    read: async (request: JmapRequest): Promise<JmapResponse> => {
      requests.push(request);
      return { methodResponses: answer(request), sessionState: 's' } as unknown as JmapResponse;
    },
  } as unknown as CheckContext;
}

async function lookUp(
  answer: (request: JmapRequest) => unknown[],
  audit: string[] = [],
): Promise<{ known: boolean; requests: JmapRequest[] }> {
  const stateDir = await tempCredentialsDir();
  if (audit.length > 0)
    await appendAudit(stateDir, {
      at: '2026-01-01T00:00:00Z',
      door: 'cli',
      inbox: 'ada@agent-mailbox.test',
      verdict: 'sent',
      recipients: audit,
    });
  const requests: JmapRequest[] = [];
  return {
    known: await isKnownRecipient(bob, { stateDir, authservId: ours, context: context(answer, requests) }),
    requests,
  };
}

describe("the known mode's lookups on the wire", () => {
  it('ask the service for its latest submissions, then mail from the address with its Authentication-Results, each with the right capabilities and a back-reference', async () => {
    const { known, requests } = await lookUp(() => [
      ['Email/query', { ids: [] }, 'q'],
      ['Email/get', { list: [] }, 'g'],
    ]);
    expect(known).toBe(false);
    const using = ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'];
    expect(requests).toEqual([
      {
        using: [...using, 'urn:ietf:params:jmap:submission'],
        methodCalls: [
          [
            'EmailSubmission/query',
            { accountId: 'acc-1', sort: [{ property: 'sentAt', isAscending: false }], limit: 100 },
            'q',
          ],
          [
            'EmailSubmission/get',
            {
              accountId: 'acc-1',
              '#ids': { resultOf: 'q', name: 'EmailSubmission/query', path: '/ids' },
              properties: ['envelope', 'undoStatus'],
            },
            'g',
          ],
        ],
      },
      {
        using,
        methodCalls: [
          ['Email/query', { accountId: 'acc-1', filter: { from: 'bob@example.test' }, limit: 25 }, 'q'],
          [
            'Email/get',
            {
              accountId: 'acc-1',
              '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
              properties: ['id', 'from', 'header:Authentication-Results:asText:all'],
            },
            'g',
          ],
        ],
      },
    ]);
  });

  it('ask for every submission when the server has no EmailSubmission/query', async () => {
    const { known, requests } = await lookUp((request) => {
      const first = request.methodCalls[0]?.[0];
      if (first === 'EmailSubmission/query')
        return [
          ['error', { type: 'unknownMethod' }, 'q'],
          ['error', { type: 'invalidResultReference' }, 'g'],
        ];
      if (first === 'EmailSubmission/get')
        return [
          [
            'EmailSubmission/get',
            { list: [{ undoStatus: 'final', envelope: { rcptTo: [{ email: 'bob@example.test' }] } }] },
            'g',
          ],
        ];
      return [['Email/get', { list: [] }, 'g']];
    });
    expect(known).toBe(true);
    expect(requests[1]?.methodCalls).toEqual([
      ['EmailSubmission/get', { accountId: 'acc-1', ids: null, properties: ['envelope', 'undoStatus'] }, 'g'],
    ]);
  });

  it('know nothing from answers that carry an error instead of Email/get', async () => {
    const { known } = await lookUp(() => [['error', { type: 'serverFail' }, 'q']]);
    expect(known).toBe(false);
  });

  it('need the address among the envelope recipients of a final submission, not only some recipient', async () => {
    const submissions = (list: unknown[]) => (request: JmapRequest) =>
      JSON.stringify(request).includes('EmailSubmission')
        ? [['EmailSubmission/get', { list }, 'g']]
        : [['Email/get', { list: [] }, 'g']];
    const to = (...emails: unknown[]) => ({
      rcptTo: emails.map((email) => (typeof email === 'string' ? { email } : email)),
    });
    expect(
      (await lookUp(submissions([{ undoStatus: 'final', envelope: to('carol@example.test', 'BOB@example.test') }])))
        .known,
    ).toBe(true);
    for (const list of [
      [{ undoStatus: 'final', envelope: to('carol@example.test') }],
      [{ undoStatus: 'canceled', envelope: to('bob@example.test') }],
      [{ undoStatus: 'pending', envelope: to('bob@example.test') }],
      [{ envelope: to('bob@example.test') }],
      [{ undoStatus: 'final', envelope: null }, { undoStatus: 'final' }, null, 'x'],
      [{ undoStatus: 'final', envelope: { rcptTo: 'bob@example.test' } }],
      [{ undoStatus: 'final', envelope: to(null, 42) }],
    ]) {
      expect((await lookUp(submissions(list))).known, JSON.stringify(list)).toBe(false);
    }
  });

  it('count only sent or approved audit entries naming the address', async () => {
    expect((await lookUp(() => [['Email/get', { list: [] }, 'g']], ['carol@example.test'])).known).toBe(false);
    expect((await lookUp(() => [['Email/get', { list: [] }, 'g']], ['not an address', 'BOB@example.test'])).known).toBe(
      true,
    );
  });

  it('take no mail without a From list as proof', async () => {
    const { known } = await lookUp((request) =>
      JSON.stringify(request).includes('EmailSubmission')
        ? [['Email/get', { list: [] }, 'g']]
        : [
            [
              'Email/get',
              {
                list: [
                  { 'header:Authentication-Results:asText:all': [`${ours}; dmarc=pass header.from=example.test`] },
                ],
              },
              'g',
            ],
          ],
    );
    expect(known).toBe(false);
  });

  it('read the Authentication-Results fields that are text and skip the rest', async () => {
    const { known } = await lookUp((request) =>
      JSON.stringify(request).includes('EmailSubmission')
        ? [['Email/get', { list: [] }, 'g']]
        : [
            [
              'Email/get',
              {
                list: [
                  {
                    id: 'M1',
                    from: [{ email: 'bob@example.test' }],
                    'header:Authentication-Results:asText:all': [
                      null,
                      7,
                      `${ours}; dmarc=pass header.from=example.test`,
                    ],
                  },
                ],
              },
              'g',
            ],
          ],
    );
    expect(known).toBe(true);
  });
});

describe('a DMARC pass in Authentication-Results', () => {
  const passedDmarcFor = (fields: string[], authservId: string, domain: string) =>
    judgeDomain(fields, authservId, domain).authenticated;
  const pass = (id: string, rest = 'dmarc=pass header.from=example.test'): boolean =>
    passedDmarcFor([`${id}; ${rest}`], ours, 'example.test');

  it('is read under the configured id whatever its case, quoting, version or trailing dot', () => {
    expect(pass(ours)).toBe(true);
    expect(pass('Agent-Mailbox.TEST.')).toBe(true);
    expect(pass(`"${ours}"`)).toBe(true);
    expect(pass(`${ours} 1`)).toBe(true);
    expect(pass(`${ours}\t1`)).toBe(true);
    expect(passedDmarcFor([`${ours}; dmarc=pass header.from=example.test`], ` ${ours}. `, 'example.test')).toBe(true);
  });

  it('is not read under another id, or one that only starts or ends like it', () => {
    expect(pass(`x${ours}`)).toBe(false);
    expect(pass(`${ours}x`)).toBe(false);
    expect(pass(`"x"${ours}`)).toBe(false);
    expect(pass(`${ours}"x"`)).toBe(false);
  });

  it('is found with words separated by tabs or several spaces, and a trailing dot on the domain', () => {
    expect(pass(ours, 'dmarc=pass\theader.from=example.test.')).toBe(true);
    expect(pass(ours, 'dmarc=pass  (p=none)  header.from=example.test')).toBe(true);
  });

  it('ignores semicolons and results inside comments, escaped parentheses included', () => {
    expect(pass(ours, 'spf=pass (a comment; dmarc=pass header.from=example.test) smtp.mailfrom=x')).toBe(false);
    expect(
      pass(ours, 'dmarc=fail (escaped \\) still; dmarc=pass header.from=example.test) header.from=example.test'),
    ).toBe(false);
    expect(pass(ours, 'dmarc=pass (nested (deep) still) header.from=example.test')).toBe(true);
    expect(pass(ours, 'dmarc=pass) header.from=example.test')).toBe(false);
  });

  it('reads a backslash outside comments as text, and a domain holding one as no domain', () => {
    expect(passedDmarcFor([`${ours}; dmarc=pass header.from=a\\b.test`], ours, 'a\\b.test')).toBe(false);
  });
});
