import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/policy/records/audit-log.js';
import { cyrusSkipReason } from '../cyrus/cyrus-test-kit.js';
import { refusal, startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';

/**
 * A model that controls its next request against the batch's one creation-id namespace (RFC 8620
 * §5.3): the server maps `#id` to the record last created under it, so a forbidden create followed
 * by a harmless one under the same id that is made to fail would send the forbidden mail while the
 * guard judged the harmless one. Every such batch is refused whatever the mode; the blocked
 * recipient receives nothing, nothing is left anywhere, and the audit log records the refusal and
 * no send. On the embedded store and, where it runs, on Cyrus.
 */

let world: GuardWorld;
const eve = 'eve@evil.test';

function draft(subject: string, to: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mailboxIds: { $DRAFTS_MAILBOX_ID: true },
    keywords: { $draft: true },
    from: [{ email: '$INBOX' }],
    to: [{ email: to }],
    subject,
    textBody: [{ partId: 'b', type: 'text/plain' }],
    bodyValues: { b: { value: 'hello' } },
    ...extra,
  };
}

/** A draft to an allowed recipient that the server refuses (no such mailbox), so an earlier create under its id stands. */
const failing = (subject: string): Record<string, unknown> =>
  draft(subject, world.address.bob, { mailboxIds: { 'no-such-mailbox': true } });
const raw = (subject: string, to: string): string =>
  `From: <$INBOX>\r\nTo: <${to}>\r\nSubject: ${subject}\r\nMessage-ID: <${Date.now()}.${Math.random()}@agent-mailbox.test>\r\n\r\nhello\r\n`;
const submit = (emailId: string): unknown => [
  'EmailSubmission/set',
  { accountId: '$ACCOUNT_ID', create: { s: { emailId, identityId: '$IDENTITY_ID' } } },
  's',
];

async function expectRefusedAndNoTrace(ops: unknown[], subject: string, problem: string): Promise<void> {
  const attempt = world.ops(world.alice, ops);
  await attempt.catch(() => undefined);
  // What reached the recipients first: were the guard talked around, this shows the mail that left.
  const traces = await world.traces(subject);
  expect(traces.outside).toEqual([]);
  expect(traces).toEqual({ alice: [], bob: [], outside: [] });
  const error = await refusal(attempt);
  expect(error.code).toBe('policy_refused');
  expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'unjudgeable' } });
  expect(error.message).toContain(problem);
  const audit = await readAudit(world.alice.dir);
  expect(audit.filter((entry) => entry.verdict === 'sent' && entry.subject === subject)).toEqual([]);
  expect(audit.at(-1)).toMatchObject({
    verdict: 'refused',
    rule: 'default: unjudgeable',
    recipients: [],
    note: expect.stringContaining(problem),
  });
}

function suite(backend: 'embedded' | 'cyrus'): void {
  describe(`one creation id defined twice (${backend})`, () => {
    beforeAll(async () => {
      world = await startGuardWorld(backend, `cids-${backend}`);
    });
    afterEach(async () => world.clearPolicies());

    it('refuses a forbidden draft followed by a failing harmless one under the same id, across two Email/set calls', async () => {
      await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
      const subject = 'Ids: two Email/set calls';
      const ops = [
        ['Email/set', { accountId: '$ACCOUNT_ID', create: { d: draft(subject, eve) } }, 'e1'],
        ['Email/set', { accountId: '$ACCOUNT_ID', create: { d: failing('Ids: decoy') } }, 'e2'],
        submit('#d'),
      ];
      await expectRefusedAndNoTrace(
        ops,
        subject,
        'the creation id "d" is defined twice, by Email/set (call e1) and by Email/set (call e2)',
      );
    });

    it('refuses it in open mode too, with only a block-list, and when the harmless create comes second and succeeds', async () => {
      await world.writeInboxPolicy(world.alice.dir, { send: { block: ['evil.test'] } });
      const subject = 'Ids: open mode';
      const ops = [
        ['Email/set', { accountId: '$ACCOUNT_ID', create: { d: draft(subject, eve) } }, 'e1'],
        ['Email/set', { accountId: '$ACCOUNT_ID', create: { d: draft('Ids: open decoy', world.address.bob) } }, 'e2'],
        submit('#d'),
      ];
      await expectRefusedAndNoTrace(ops, subject, '"d" is defined twice');
      expect(await world.traces('Ids: open decoy')).toEqual({ alice: [], bob: [], outside: [] });
    });

    it('refuses an Email/import of a forbidden message and a failing Email/set under one id', async () => {
      await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
      const subject = 'Ids: import then set';
      const ops = [
        [
          'Blob/upload',
          {
            accountId: '$ACCOUNT_ID',
            create: { u: { data: [{ 'data:asText': raw(subject, eve) }], type: 'message/rfc822' } },
          },
          'b',
        ],
        [
          'Email/import',
          {
            accountId: '$ACCOUNT_ID',
            emails: { d: { blobId: '#u', mailboxIds: { $DRAFTS_MAILBOX_ID: true }, keywords: { $draft: true } } },
          },
          'i',
        ],
        ['Email/set', { accountId: '$ACCOUNT_ID', create: { d: failing('Ids: import decoy') } }, 'e'],
        submit('#d'),
      ];
      await expectRefusedAndNoTrace(ops, subject, 'by Email/import (call i) and by Email/set (call e)');
    });

    it('refuses two Blob/upload creates under one id, the later one made to fail, before an import of #id', async () => {
      await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
      const subject = 'Ids: two uploads';
      const ops = [
        [
          'Blob/upload',
          {
            accountId: '$ACCOUNT_ID',
            create: { u: { data: [{ 'data:asText': raw(subject, eve) }], type: 'message/rfc822' } },
          },
          'b1',
        ],
        // A harmless message the guard can read and the server refuses (a type that is no string).
        [
          'Blob/upload',
          {
            accountId: '$ACCOUNT_ID',
            create: { u: { data: [{ 'data:asText': raw('Ids: upload decoy', world.address.bob) }], type: 5 } },
          },
          'b2',
        ],
        [
          'Email/import',
          { accountId: '$ACCOUNT_ID', emails: { d: { blobId: '#u', mailboxIds: { $DRAFTS_MAILBOX_ID: true } } } },
          'i',
        ],
        submit('#d'),
      ];
      await expectRefusedAndNoTrace(
        ops,
        subject,
        'the creation id "u" is defined twice, by Blob/upload (call b1) and by Blob/upload (call b2)',
      );
    });

    it('refuses an id shared by a Blob/upload and the Email/set whose draft it would stand in for', async () => {
      await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
      const subject = 'Ids: upload and set';
      const ops = [
        ['Email/set', { accountId: '$ACCOUNT_ID', create: { d: draft(subject, eve) } }, 'e'],
        ['Blob/upload', { accountId: '$ACCOUNT_ID', create: { d: { data: [{ 'data:asText': 'x' }] } } }, 'b'],
        submit('#d'),
      ];
      await expectRefusedAndNoTrace(ops, subject, 'by Email/set (call e) and by Blob/upload (call b)');
    });

    it('refuses a submission whose #emailId names a Blob/upload, not a mail', async () => {
      const subject = 'Ids: emailId is a blob';
      const ops = [
        [
          'Blob/upload',
          { accountId: '$ACCOUNT_ID', create: { u: { data: [{ 'data:asText': raw(subject, eve) }] } } },
          'b',
        ],
        submit('#u'),
      ];
      const error = await refusal(world.ops(world.alice, ops));
      expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'unjudgeable' } });
      expect(error.message).toContain('#u is created nowhere before the submission');
      expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
    });

    it('lets a batch with distinct ids through and records exactly the mail that left', async () => {
      await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
      const subject = 'Ids: distinct';
      const result = await world.ops(world.alice, [
        [
          'Email/set',
          {
            accountId: '$ACCOUNT_ID',
            create: { d: draft(subject, world.address.bob), e: draft('Ids: kept draft', eve) },
          },
          'e',
        ],
        submit('#d'),
      ]);
      expect(result.ok, result.summary).toBe(true);
      expect((await world.traces(subject)).bob).toHaveLength(1);
      expect((await world.traces('Ids: kept draft')).outside).toEqual([]);
      expect((await readAudit(world.alice.dir)).filter((entry) => entry.verdict === 'sent').at(-1)).toMatchObject({
        subject,
        recipients: [world.address.bob],
      });
    });
  });
}

suite('embedded');
if (!cyrusSkipReason('guard-creation-ids')) suite('cyrus');
