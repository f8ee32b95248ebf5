import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../../src/errors.js';
import type { CheckContext, GuardNotice } from '../../../../src/gate/outgoing.js';
import type { JmapRequest, JmapResponse } from '../../../../src/jmap/jmap-types.js';
import { normaliseAddress, type NormalisedAddress } from '../../../../src/policy/address-matcher.js';
import { readAudit } from '../../../../src/policy/records/audit-log.js';
import { listOutbox } from '../../../../src/policy/records/outbox-store.js';
import type { GuardScope } from '../../../../src/request/guard/guard-scope.js';
import type { PlannedSubmission } from '../../../../src/request/guard/mail/batch-sends.js';
import type { SendUnderJudgement } from '../../../../src/request/guard/send-judgement.js';
import { settleSends, type GoingSend, type HeldSend } from '../../../../src/request/guard/settle-sends.js';
import { tempCredentialsDir } from '../../../helpers/temp-credentials-dir.js';

/**
 * After a checked batch ran: what the audit log says of each send (sent, approved, refused by the
 * server), which caps slots are given back (only when the service certainly did nothing), and held
 * mail recorded in the outbox and reported to the caller.
 */

const bob = normaliseAddress('bob@example.test') as NormalisedAddress;

const request: JmapRequest = {
  using: [],
  methodCalls: [
    ['Email/set', { create: { draft: {} } }, 'c0'],
    ['EmailSubmission/set', { create: { sub: {} } }, 'c1'],
  ],
};

function submission(extra: Partial<PlannedSubmission> = {}): PlannedSubmission {
  return {
    callIndex: 1,
    callId: 'c1',
    creationId: 'sub',
    accountId: 'acc',
    emailId: '#draft',
    envelope: undefined,
    source: { kind: 'create', creationId: 'draft', callIndex: 0, create: {} },
    ...extra,
  };
}

function send(extra: Partial<SendUnderJudgement> = {}): SendUnderJudgement {
  return {
    label: 'mail to bob@example.test',
    kind: 'mail',
    recipients: [bob],
    unreadable: [],
    scanParts: [],
    slots: 1,
    submission: submission(),
    mail: {
      subject: 'Figures',
      headerRecipients: { addresses: [bob], unreadable: [] },
      firstLines: '',
      attachments: [],
      scanParts: [],
    },
    ...extra,
  };
}

interface Scene {
  settle: ReturnType<typeof settleSends>;
  stateDir: string;
  released: string[];
  notices: GuardNotice[];
}

async function scene(going: Array<Partial<GoingSend>>, held: HeldSend[] = [], approved = false): Promise<Scene> {
  const stateDir = await tempCredentialsDir();
  const released: string[] = [];
  const notices: GuardNotice[] = [];
  const scope = { inbox: 'ada@agent-mailbox.test', stateDir, door: 'mcp' } as GuardScope;
  const context = {
    guard: approved ? { approved: true } : {},
    notify: (notice: GuardNotice) => void notices.push(notice),
  } as Partial<CheckContext> as CheckContext;
  const items: GoingSend[] = going.map((g, i) => ({
    send: send(),
    confirmed: false,
    slots: [{ id: `slot-${i}`, release: async () => void released.push(`slot-${i}`) }],
    ...g,
  }));
  return {
    settle: settleSends({ scope, context, request, going: items, held, accountId: 'acc' }),
    stateDir,
    released,
    notices,
  };
}

const answered = (responses: unknown[]): { kind: 'batch'; response: JmapResponse } => ({
  kind: 'batch',
  response: { methodResponses: responses, sessionState: 's' } as JmapResponse,
});

describe('settling the sends of a checked batch', () => {
  it('records a created submission as sent, with its id, the subject and who confirmed it', async () => {
    const s = await scene([{ confirmed: true }]);
    await s.settle(
      answered([
        ['Email/set', { created: { draft: { id: 'M1' } } }, 'c0'],
        ['EmailSubmission/set', { created: { sub: { id: 'S1' } } }, 'c1'],
      ]),
    );
    const [entry] = await readAudit(s.stateDir);
    expect(entry).toMatchObject({
      verdict: 'sent',
      recipients: ['bob@example.test'],
      subject: 'Figures',
      ids: { submission: 'S1' },
      note: 'mail to bob@example.test; a person confirmed it in the host',
      door: 'mcp',
      inbox: 'ada@agent-mailbox.test',
    });
    expect(s.released).toEqual([]);
  });

  it('records an approved send as approved, and one without a submission as sent', async () => {
    const s = await scene(
      [{}, { send: send({ submission: undefined, recipients: 'anyone', mail: undefined, label: 'auto-reply' }) }],
      [],
      true,
    );
    await s.settle(answered([['EmailSubmission/set', { created: { sub: {} } }, 'c1']]));
    const entries = await readAudit(s.stateDir);
    expect(entries.map((e) => [e.verdict, e.recipients, e.ids, e.subject])).toEqual([
      ['approved', ['bob@example.test'], undefined, 'Figures'],
      ['approved', ['*'], undefined, undefined],
    ]);
  });

  it('gives the slot back and records why when the server refused or skipped the submission', async () => {
    for (const [responses, why] of [
      [
        [['EmailSubmission/set', { notCreated: { sub: { type: 'forbiddenToSend' } } }, 'c1']],
        'server: forbiddenToSend',
      ],
      [[['EmailSubmission/set', { notCreated: { sub: {} } }, 'c1']], 'server: refused'],
      [[['EmailSubmission/set', {}, 'c1']], 'server: not created'],
      [[['error', { type: 'invalidArguments' }, 'c1']], 'server: invalidArguments'],
      [[['error', {}, 'c1']], 'server: error'],
      [[['Email/set', {}, 'c0']], 'the server did not run the submission'],
    ] as const) {
      const s = await scene([{}]);
      await s.settle(answered([...responses]));
      expect(s.released, why).toEqual(['slot-0']);
      expect((await readAudit(s.stateDir))[0], why).toMatchObject({ verdict: 'refused', rule: why });
    }
  });

  it('gives slots back after a failure only when the service certainly did nothing', async () => {
    const certain = [
      new MailboxError({ code: 'rate_limited', message: 'slow down', hint: 'x' }),
      new MailboxError({ code: 'bad_response', status: 400, message: 'bad', hint: 'x' }),
      new MailboxError({ code: 'bad_response', status: 499, message: 'bad', hint: 'x' }),
    ];
    for (const error of certain) {
      const s = await scene([{}]);
      await s.settle({ kind: 'failed', error });
      expect(s.released, error.message).toEqual(['slot-0']);
      expect((await readAudit(s.stateDir))[0]).toMatchObject({
        verdict: 'refused',
        rule: 'server: the request was refused',
        note: 'nothing was sent',
      });
    }
    const uncertain = [
      new Error('socket hang up'),
      new MailboxError({ code: 'timeout', message: 't', hint: 'x' }),
      new MailboxError({ code: 'bad_response', status: 408, message: 't', hint: 'x' }),
      new MailboxError({ code: 'bad_response', status: 500, message: 't', hint: 'x' }),
      new MailboxError({ code: 'bad_response', status: 399, message: 't', hint: 'x' }),
    ];
    for (const error of uncertain) {
      const s = await scene([{}]);
      await s.settle({ kind: 'failed', error });
      expect(s.released, error.message).toEqual([]);
      const [entry] = await readAudit(s.stateDir);
      expect(entry).toMatchObject({
        verdict: 'sent',
        note: 'the service gave no answer: the mail may have been sent (check Sent)',
      });
      expect(entry?.rule).toBeUndefined();
    }
  });

  it('does nothing after an upload', async () => {
    const s = await scene([{}]);
    await s.settle({ kind: 'upload', blobId: 'b' });
    expect(await readAudit(s.stateDir)).toEqual([]);
  });

  it('records held mail in the outbox with the recipients judged, audits it and tells the caller', async () => {
    const s = await scene(
      [],
      [
        {
          send: send({ submission: submission({ identityId: 'I1' }) }),
          rule: 'inbox: send.mode=confirm',
          why: 'nobody to ask',
        },
      ],
    );
    await s.settle(
      answered([
        ['Email/set', { created: { draft: { id: 'M9' } } }, 'c0'],
        ['EmailSubmission/set', { notCreated: {} }, 'c1'],
      ]),
    );
    const [record] = await listOutbox(s.stateDir);
    expect(record).toMatchObject({
      inbox: 'ada@agent-mailbox.test',
      emailId: 'M9',
      identityId: 'I1',
      mailFrom: 'ada@agent-mailbox.test',
      rcptTo: ['bob@example.test'],
      subject: 'Figures',
      reason: 'inbox: send.mode=confirm',
      status: 'held',
    });
    expect((await readAudit(s.stateDir))[0]).toMatchObject({
      verdict: 'held',
      rule: 'inbox: send.mode=confirm',
      ids: { email: 'M9', outbox: record?.id },
      note: 'nobody to ask',
    });
    expect(s.notices).toEqual([
      {
        kind: 'held',
        outboxId: record?.id,
        emailId: 'M9',
        recipients: ['bob@example.test'],
        subject: 'Figures',
        rule: 'inbox: send.mode=confirm',
        why: 'nobody to ask',
      },
    ]);
  });

  it('refuses in the audit a mail to be held whose draft was not created, and records nothing in the outbox', async () => {
    for (const held of [
      { send: send(), rule: 'r', why: 'no answer in time' as const },
      { send: send({ submission: undefined, mail: undefined }), rule: 'r', why: 'no answer in time' as const },
    ]) {
      const s = await scene([], [held]);
      await s.settle(answered([['Email/set', { notCreated: { draft: {} } }, 'c0']]));
      expect(await listOutbox(s.stateDir)).toEqual([]);
      expect((await readAudit(s.stateDir))[0]).toMatchObject({
        verdict: 'refused',
        rule: 'r',
        note: 'to be held, but the mail was not created',
      });
      expect(s.notices).toEqual([]);
    }
  });
});
