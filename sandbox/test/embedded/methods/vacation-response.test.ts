import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jmapCapabilities } from '../../../src/wire-constants.js';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../helpers/jmap-test-host.js';

// VacationResponse/get and /set (RFC 8621 §8), and the replies an enabled one sends on delivery
// (RFC 5230 §4, RFC 3834). The store's clock is the test's, so the reply period is crossed without waiting.
const alice = 'alice@agent-mailbox.test';
const bob = 'bob@agent-mailbox.test';
const day = 24 * 60 * 60 * 1000;
let clock = Date.UTC(2026, 5, 1, 9, 0, 0);
let host: JmapTestHost;

beforeAll(async () => {
  host = await startJmapTestHost({ now: () => new Date(clock) });
  await host.addInboxes('alice', 'bob');
});
afterAll(() => host.close());

const vacation = async (user: string, patch: Record<string, unknown>) =>
  resultOf(
    await host.call(user, [
      ['VacationResponse/set', { accountId: `${user}@agent-mailbox.test`, update: { singleton: patch } }, 'v'],
    ]),
    'v',
  );
const inbound = (from: string, headers: Record<string, string> = {}, to = alice): Promise<unknown> => {
  const lines = [
    `From: ${from}`,
    `To: ${to}`,
    `Subject: ${headers['Subject'] ?? 'Question'}`,
    `Message-ID: <${Math.random().toString(36).slice(2)}@outside.test>`,
  ];
  for (const [name, value] of Object.entries(headers)) if (name !== 'Subject') lines.push(`${name}: ${value}`);
  return host.backend.deliverInbound(Buffer.from(`${lines.join('\r\n')}\r\n\r\nhello\r\n`), {
    from: from.replace(/.*<|>.*/g, ''),
    to: [alice],
  });
};
const repliesTo = async (address: string) =>
  (await host.backend.outbox()).filter((entry) => entry.to.includes(address));

describe('VacationResponse/get and /set', () => {
  it('starts disabled with the singleton id, and needs the vacationresponse capability in using', async () => {
    const result = resultOf(
      await host.call('bob', [['VacationResponse/get', { accountId: bob, ids: null }, 'g']]),
      'g',
    );
    expect(result['list']).toEqual([
      {
        id: 'singleton',
        isEnabled: false,
        fromDate: null,
        toDate: null,
        subject: null,
        textBody: null,
        htmlBody: null,
      },
    ]);
    const without = await host.call(
      'bob',
      [['VacationResponse/get', { accountId: bob }, 'g']],
      [jmapCapabilities.core, jmapCapabilities.mail],
    );
    expect(without[0]?.[1]).toMatchObject({ type: 'unknownMethod' });
    const other = resultOf(
      await host.call('bob', [
        ['VacationResponse/get', { accountId: bob, ids: ['other'], properties: ['isEnabled'] }, 'g'],
      ]),
      'g',
    );
    expect(other).toMatchObject({ list: [], notFound: ['other'] });
  });

  it('updates the singleton and moves its state; create and destroy are singleton errors, other ids notFound', async () => {
    const before = resultOf(await host.call('bob', [['VacationResponse/get', { accountId: bob }, 'g']]), 'g')['state'];
    const result = resultOf(
      await host.call('bob', [
        [
          'VacationResponse/set',
          {
            accountId: bob,
            ifInState: before,
            create: { x: { isEnabled: true } },
            update: { singleton: { subject: 'Out', textBody: 'Back soon' }, other: { isEnabled: true } },
            destroy: ['singleton'],
          },
          's',
        ],
      ]),
      's',
    );
    expect(result).toMatchObject({
      oldState: before,
      updated: { singleton: null },
      notCreated: { x: { type: 'singleton' } },
      notUpdated: { other: { type: 'notFound' } },
      notDestroyed: { singleton: { type: 'singleton' } },
    });
    expect(result['newState']).not.toBe(before);
    const after = resultOf(
      await host.call('bob', [['VacationResponse/get', { accountId: bob, properties: ['subject', 'textBody'] }, 'g']]),
      'g',
    );
    expect(after['list']).toEqual([{ id: 'singleton', subject: 'Out', textBody: 'Back soon' }]);
  });

  it('refuses bad values property by property, and a stale ifInState as a whole', async () => {
    const responses = await host.call('bob', [
      ['VacationResponse/set', { accountId: bob, update: { singleton: { fromDate: 'tomorrow' } } }, 'a'],
      ['VacationResponse/set', { accountId: bob, update: { singleton: { isEnabled: 'yes' } } }, 'b'],
      ['VacationResponse/set', { accountId: bob, update: { singleton: { colour: 'red' } } }, 'c'],
      [
        'VacationResponse/set',
        { accountId: bob, update: { singleton: { fromDate: '2026-07-02T00:00:00Z', toDate: '2026-07-01T00:00:00Z' } } },
        'd',
      ],
      ['VacationResponse/set', { accountId: bob, ifInState: 'old', update: { singleton: { isEnabled: false } } }, 'e'],
    ]);
    expect(resultOf(responses, 'a')['notUpdated']['singleton']).toMatchObject({
      type: 'invalidProperties',
      properties: ['fromDate'],
    });
    expect(resultOf(responses, 'b')['notUpdated']['singleton']).toMatchObject({ properties: ['isEnabled'] });
    expect(resultOf(responses, 'c')['notUpdated']['singleton']).toMatchObject({ properties: ['colour'] });
    expect(resultOf(responses, 'd')['notUpdated']['singleton']).toMatchObject({ properties: ['toDate'] });
    expect(responses[4]?.[1]).toMatchObject({ type: 'stateMismatch' });
  });
});

describe('the vacation reply', () => {
  it('answers an outside sender once, through the outbox, with an empty envelope sender and Auto-Submitted: auto-replied', async () => {
    await vacation('alice', { isEnabled: true, subject: null, textBody: 'I am away until Monday.' });
    await inbound('Dan <dan@outside.test>', { Subject: 'Lunch?' });
    const [reply, ...more] = await repliesTo('dan@outside.test');
    expect(more).toEqual([]);
    expect(reply).toMatchObject({ from: '', to: ['dan@outside.test'], subject: 'Auto: Lunch?' });
    const raw = Buffer.from(reply?.rawBase64 ?? '', 'base64').toString();
    expect(raw).toMatch(/^Auto-Submitted: auto-replied\r$/m);
    expect(raw).toMatch(/^From: alice@agent-mailbox\.test\r$/m);
    expect(raw).toMatch(/^In-Reply-To: <[a-z0-9]+@outside\.test>\r$/m);
    expect(raw).toContain('I am away until Monday.');
    // The service's own mail: signed for its domain like anything else an inbox sends.
    expect(raw.replace(/\r\n[ \t]+/g, ' ')).toMatch(/^DKIM-Signature: .*\bd=agent-mailbox\.test;/m);

    await inbound('Dan <dan@outside.test>', { Subject: 'Lunch tomorrow then?' });
    expect(await repliesTo('dan@outside.test')).toHaveLength(1);
  });

  it('answers the same sender again once the 7-day period has passed', async () => {
    await inbound('Erin <erin@outside.test>');
    clock += 6 * day;
    await inbound('Erin <erin@outside.test>');
    expect(await repliesTo('erin@outside.test')).toHaveLength(1);
    clock += day;
    await inbound('Erin <erin@outside.test>');
    expect(await repliesTo('erin@outside.test')).toHaveLength(2);
  });

  it('stays silent for automated mail, lists, bounces, mailer daemons, and mail not addressed to the inbox', async () => {
    await inbound('Fay <fay@outside.test>', { 'Auto-Submitted': 'auto-generated' });
    await inbound('Gil <gil@outside.test>', { Precedence: 'bulk' });
    await inbound('Hal <hal@outside.test>', { 'List-Id': '<news.outside.test>' });
    await inbound('MAILER-DAEMON <mailer-daemon@outside.test>');
    await inbound('Ivy <ivy@outside.test>', {}, 'someone-else@outside.test');
    await host.backend.deliverInbound(
      Buffer.from(`From: jo@outside.test\r\nTo: ${alice}\r\nSubject: bounce\r\n\r\nx\r\n`),
      { from: '', to: [alice] },
    );
    const outbox = await host.backend.outbox();
    for (const sender of ['fay', 'gil', 'hal', 'mailer-daemon', 'ivy', 'jo'])
      expect(
        outbox.filter((entry) => entry.to.includes(`${sender}@outside.test`)),
        sender,
      ).toEqual([]);
    // Auto-Submitted: no is a person's mail and gets its answer.
    await inbound('Kim <kim@outside.test>', { 'Auto-Submitted': 'no' });
    expect(await repliesTo('kim@outside.test')).toHaveLength(1);
  });

  it('answers only inside fromDate–toDate', async () => {
    const now = new Date(clock);
    await vacation('alice', { fromDate: new Date(clock + day).toISOString().replace('.000Z', 'Z'), toDate: null });
    await inbound('Lee <lee@outside.test>');
    expect(await repliesTo('lee@outside.test')).toEqual([]);
    await vacation('alice', { fromDate: null, toDate: now.toISOString().replace('.000Z', 'Z') });
    await inbound('Lee <lee@outside.test>');
    expect(await repliesTo('lee@outside.test')).toEqual([]);
    await vacation('alice', { toDate: new Date(clock + day).toISOString().replace('.000Z', 'Z') });
    await inbound('Lee <lee@outside.test>');
    expect(await repliesTo('lee@outside.test')).toHaveLength(1);
  });

  it('starts over when the response changes, and says nothing once disabled', async () => {
    await inbound('Max <max@outside.test>');
    await vacation('alice', { subject: 'New plan', htmlBody: '<p>Away <b>all week</b></p>' });
    await inbound('Max <max@outside.test>');
    const replies = await repliesTo('max@outside.test');
    expect(replies.map((entry) => entry.subject)).toEqual([expect.stringMatching(/^Auto: /), 'New plan']);
    const html = Buffer.from(replies[1]?.rawBase64 ?? '', 'base64').toString();
    expect(html).toContain('multipart/alternative');
    expect(html).toContain('<p>Away <b>all week</b></p>');
    expect(html).toContain('I am away until Monday.');
    await vacation('alice', { isEnabled: false });
    await inbound('Ned <ned@outside.test>');
    expect(await repliesTo('ned@outside.test')).toEqual([]);
  });

  it("delivers the reply to a sandbox sender's Inbox, and two inboxes away at once never answer each other", async () => {
    await vacation('alice', { isEnabled: true, subject: 'Alice is away' });
    await vacation('bob', { isEnabled: true, subject: 'Bob is away' });
    const boxes = await mailboxIds(host, 'bob');
    const sent = await host.call('bob', [
      [
        'Email/set',
        {
          accountId: bob,
          create: {
            d: {
              mailboxIds: { [boxes['drafts'] as string]: true },
              from: [{ email: bob }],
              to: [{ email: alice }],
              subject: 'Status',
              bodyValues: { b: { value: 'hi' } },
              textBody: [{ partId: 'b', type: 'text/plain' }],
            },
          },
        },
        'e',
      ],
      ['EmailSubmission/set', { accountId: bob, create: { s: { emailId: '#d', identityId: bob } } }, 's'],
    ]);
    expect(resultOf(sent, 's')['created']).toHaveProperty('s');
    const bobInbox = resultOf(
      await host.call('bob', [
        ['Email/query', { accountId: bob, filter: { inMailbox: boxes['inbox'] } }, 'q'],
        [
          'Email/get',
          {
            accountId: bob,
            '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
            properties: ['subject', 'header:Auto-Submitted:asText', 'header:Authentication-Results:asText'],
          },
          'g',
        ],
      ]),
      'g',
    )['list'] as Array<Record<string, unknown>>;
    expect(bobInbox).toEqual([
      expect.objectContaining({ subject: 'Alice is away', 'header:Auto-Submitted:asText': 'auto-replied' }),
    ]);
    expect(String(bobInbox[0]?.['header:Authentication-Results:asText'])).toMatch(/dkim=pass[\s\S]*dmarc=pass/);
    const aliceGot = resultOf(
      await host.call('alice', [['Email/query', { accountId: alice, filter: { subject: 'Bob is away' } }, 'q']]),
      'q',
    );
    expect(aliceGot['ids']).toEqual([]);
  });
});

describe('persistence', () => {
  it('keeps the vacation response and whom it answered across a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vacation-'));
    try {
      const first = await startJmapTestHost({ dataDir, now: () => new Date(clock) });
      await first.addInboxes('carol');
      resultOf(
        await first.call('carol', [
          [
            'VacationResponse/set',
            {
              accountId: 'carol@agent-mailbox.test',
              update: { singleton: { isEnabled: true, subject: 'Gone fishing' } },
            },
            'v',
          ],
        ]),
        'v',
      );
      await first.backend.deliverInbound(
        Buffer.from('From: pat@outside.test\r\nTo: carol@agent-mailbox.test\r\nSubject: hi\r\n\r\nx\r\n'),
        { from: 'pat@outside.test', to: ['carol@agent-mailbox.test'] },
      );
      await first.close();
      const second = await startJmapTestHost({ dataDir, now: () => new Date(clock) });
      const got = resultOf(
        await second.call('carol', [['VacationResponse/get', { accountId: 'carol@agent-mailbox.test' }, 'g']]),
        'g',
      );
      expect(got['list'][0]).toMatchObject({ isEnabled: true, subject: 'Gone fishing' });
      await second.backend.deliverInbound(
        Buffer.from('From: pat@outside.test\r\nTo: carol@agent-mailbox.test\r\nSubject: again\r\n\r\nx\r\n'),
        { from: 'pat@outside.test', to: ['carol@agent-mailbox.test'] },
      );
      expect((await second.backend.outbox()).filter((entry) => entry.to.includes('pat@outside.test'))).toHaveLength(1);
      await second.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
