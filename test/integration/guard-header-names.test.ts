import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/policy/records/audit-log.js';
import { cyrusSkipReason } from '../cyrus/cyrus-test-kit.js';
import { bccSpellings } from '../helpers/bcc-spellings.js';
import { refusal, startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';

/**
 * A model that hides a recipient in a header name a composer would read as Bcc (a trailing space,
 * a tab, a no-break space, an inner space, NUL, DEL, a colon, fullwidth letters), or in a create
 * RFC 8621 forbids (the headers list, one field twice, a form the field does not allow, Content-*
 * on the Email). Each is refused whatever the mode; the blocked recipient receives nothing and the
 * audit log records the refusal and no send. Without the guard, the embedded store itself answers
 * invalidProperties and composes nothing. Every spelling on the embedded store, a few on Cyrus
 * where it runs.
 */

let world: GuardWorld;
const eve = 'eve@evil.test';

function sendOps(subject: string, email: Record<string, unknown>): unknown[] {
  return [
    [
      'Email/set',
      {
        accountId: '$ACCOUNT_ID',
        create: {
          d: {
            mailboxIds: { $DRAFTS_MAILBOX_ID: true },
            keywords: { $draft: true },
            from: [{ email: '$INBOX' }],
            to: [{ email: world.address.bob }],
            subject,
            textBody: [{ partId: 'b', type: 'text/plain' }],
            bodyValues: { b: { value: 'hello' } },
            ...email,
          },
        },
      },
      'e',
    ],
    [
      'EmailSubmission/set',
      { accountId: '$ACCOUNT_ID', create: { s: { emailId: '#d', identityId: '$IDENTITY_ID' } } },
      's',
    ],
  ];
}

async function expectRefused(subject: string, email: Record<string, unknown>, problem: string | RegExp): Promise<void> {
  const attempt = world.ops(world.alice, sendOps(subject, email));
  await attempt.catch(() => undefined);
  const traces = await world.traces(subject);
  expect(traces.outside).toEqual([]);
  expect(traces).toEqual({ alice: [], bob: [], outside: [] });
  const error = await refusal(attempt);
  expect(error.details).toMatchObject({ rule: { layer: 'default', rule: 'unjudgeable' } });
  expect(error.message).toMatch(problem);
  const audit = await readAudit(world.alice.dir);
  expect(audit.filter((entry) => entry.verdict === 'sent' && entry.subject === subject)).toEqual([]);
  expect(audit.at(-1)).toMatchObject({ verdict: 'refused', rule: 'default: unjudgeable', recipients: [] });
}

const spellings: Record<string, string> = { ...bccSpellings, colon: 'Bcc:' };

function suite(backend: 'embedded' | 'cyrus'): void {
  describe(backend, () => {
    beforeAll(async () => {
      world = await startGuardWorld(backend, `hdrs-${backend}`);
    });
    afterEach(async () => world.clearPolicies());

    describe(`header names a composer would read as Bcc (${backend})`, () => {
      for (const [label, name] of Object.entries(spellings).filter(
        ([label]) => backend === 'embedded' || ['trailing space', 'no-break space', 'NUL', 'colon'].includes(label),
      )) {
        if (label !== 'colon') {
          it(`refuses a header:Bcc property spelt with a ${label}, to a blocked address in open mode`, async () => {
            await world.writeInboxPolicy(world.alice.dir, { send: { block: ['evil.test'] } });
            await expectRefused(
              `Names: property, ${label}`,
              { [`header:${name}`]: ` ${eve}` },
              'does not allow in one',
            );
          });
        }
        it(`refuses a Bcc spelt with a ${label} in the headers list, under an allow-list`, async () => {
          await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
          await expectRefused(
            `Names: headers, ${label}`,
            { headers: [{ name, value: ` ${eve}` }] },
            'has the headers property',
          );
        });
      }

      it("refuses a recipient field on a body part, whose fields can become the message's own", async () => {
        await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
        await expectRefused(
          'Names: body part Bcc',
          { textBody: [{ partId: 'b', type: 'text/plain', 'header:Bcc': ` ${eve}` }] },
          'sets Bcc on a body part',
        );
      });
    });

    describe(`creates RFC 8621 forbids (${backend})`, () => {
      it('refuses one field given twice, a form the field does not allow, and Content-* on the Email', async () => {
        await world.writeInboxPolicy(world.alice.dir, { send: { block: ['evil.test'] } });
        await expectRefused('Rules: twice', { 'header:to:asAddresses': [{ email: eve }] }, 'sets the field to twice');
        await expectRefused(
          'Rules: case',
          { 'header:X-A': ' a', 'header:x-a:asText': 'b' },
          'sets the field x-a twice',
        );
        await expectRefused(
          'Rules: form',
          { 'header:Subject:asAddresses': [{ email: eve }] },
          'Subject asAddresses, a form RFC 8621 does not allow',
        );
        await expectRefused(
          'Rules: content',
          { 'header:Content-Type': ' multipart/mixed; boundary=x' },
          'sets Content-Type on the Email itself',
        );
      });

      it('lets an ordinary create with its own header fields through, and it arrives', async () => {
        await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
        const subject = 'Rules: ordinary';
        const result = await world.ops(
          world.alice,
          sendOps(subject, { 'header:X-Tag:asText': 'tag', cc: [{ email: world.address.bob }] }),
        );
        expect(result.ok, result.summary).toBe(true);
        expect((await world.traces(subject)).bob).toHaveLength(1);
        expect((await readAudit(world.alice.dir)).at(-1)).toMatchObject({
          verdict: 'sent',
          subject,
          recipients: [world.address.bob],
        });
      });
    });
  });
}

suite('embedded');
if (!cyrusSkipReason('guard-header-names')) suite('cyrus');
