import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxLimits } from '../../../src/embedded/protocol/jmap-limits.js';
import { pollUntil, signUpInbox, startTestSandbox } from '../../helpers/sandbox.js';
import { openEventStream, type EventStreamReader } from '../../helpers/event-stream-reader.js';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../helpers/jmap-test-host.js';

let host: JmapTestHost;
const alice = 'alice@agent-mailbox.test';
const bob = 'bob@agent-mailbox.test';
const streams: EventStreamReader[] = [];

beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice', 'bob');
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await host.close();
});

async function open(user: string, query: string): Promise<EventStreamReader> {
  const stream = await openEventStream(`${host.baseUrl}/eventsource/?${query}`, `token-${user}`);
  streams.push(stream);
  return stream;
}

/** The send recipe: a draft in alice's Drafts, submitted to `to`. */
async function aliceSends(to: string): Promise<void> {
  const boxes = await mailboxIds(host, 'alice');
  const responses = await host.call('alice', [
    [
      'Email/set',
      {
        accountId: alice,
        create: {
          d: {
            mailboxIds: { [boxes['drafts'] as string]: true },
            from: [{ email: alice }],
            to: [{ email: to }],
            subject: 'push me',
            bodyValues: { b: { value: 'hi' } },
            textBody: [{ partId: 'b', type: 'text/plain' }],
          },
        },
      },
      '0',
    ],
    ['EmailSubmission/set', { accountId: alice, create: { s: { emailId: '#d', identityId: alice } } }, '1'],
  ]);
  resultOf(responses, '1', 'EmailSubmission/set');
}

describe('EventSource push (RFC 8620 §7.3)', () => {
  it('sends a StateChange to the recipient within 200 ms of a send from another inbox', async () => {
    const stream = await open('bob', 'types=*&closeafter=no&ping=0');
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    const before = await host.call('bob', [['Email/get', { accountId: bob, ids: [] }, 'g']]);
    const oldState = resultOf(before, 'g')['state'] as string;
    const sent = performance.now();
    await aliceSends(bob);
    const acknowledged = performance.now();
    const event = await stream.next(2000);
    expect(event?.event).toBe('state');
    const change = JSON.parse(event?.data ?? '{}') as {
      '@type': string;
      changed: Record<string, Record<string, string>>;
    };
    expect(change['@type']).toBe('StateChange');
    expect(Object.keys(change.changed)).toEqual([bob]);
    expect(change.changed[bob]?.['Email']).not.toBe(oldState);
    expect(change.changed[bob]).toHaveProperty('Mailbox');
    expect(change.changed[bob]).not.toHaveProperty('EmailSubmission');
    const latency = Math.max(0, (event?.at ?? Infinity) - acknowledged);
    console.log(
      `StateChange after a sandbox send: ${Math.round((event?.at ?? 0) - sent)} ms after the request, ${Math.round(latency)} ms after its answer`,
    );
    expect(latency).toBeLessThan(200);
    const after = await host.call('bob', [['Email/get', { accountId: bob, ids: [] }, 'g']]);
    expect(change.changed[bob]?.['Email']).toBe(resultOf(after, 'g')['state']);
  });

  it('only reports the requested types, and ends after one event with closeafter=state', async () => {
    const submissions = await open('bob', 'types=EmailSubmission&closeafter=state&ping=0');
    const mail = await open('bob', 'types=Email&closeafter=state&ping=0');
    await aliceSends(bob);
    const event = await mail.next(2000);
    expect(Object.keys(JSON.parse(event?.data ?? '{}').changed[bob])).toEqual(['Email']);
    expect(await mail.next(2000)).toBeUndefined();
    // bob submitted nothing, so his EmailSubmission stream stays silent until bob sends.
    await expect(submissions.next(300)).rejects.toThrow(/no event/);
  });

  it('sends ping events with the interval', async () => {
    const stream = await open('alice', 'types=*&closeafter=no&ping=1');
    const started = performance.now();
    const event = await stream.next(3000);
    expect(event?.event).toBe('ping');
    expect(JSON.parse(event?.data ?? '{}')).toEqual({ interval: 1 });
    expect((event?.at ?? 0) - started).toBeGreaterThan(800);
  });

  it('refuses bad parameters with 400 and the service error shape', async () => {
    for (const query of [
      'types=Nope&closeafter=no&ping=0',
      'types=&closeafter=no&ping=0',
      'types=*&closeafter=maybe&ping=0',
      'types=*&closeafter=no&ping=-1',
      'types=*&closeafter=no&ping=1.5',
    ]) {
      const response = await fetch(`${host.baseUrl}/eventsource/?${query}`, {
        headers: { authorization: 'Bearer token-alice' },
      });
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: { hint: string } }).error.hint).toMatch(/eventSourceUrl/);
    }
    const anonymous = await fetch(`${host.baseUrl}/eventsource/?types=*&closeafter=no&ping=0`);
    expect(anonymous.status).toBe(401);
  });

  it('caps concurrent streams per account', async () => {
    const opened: EventStreamReader[] = [];
    await host.addInboxes('carol');
    for (let index = 0; index < sandboxLimits.maxEventStreams; index += 1)
      opened.push(await open('carol', 'types=*&closeafter=no&ping=0'));
    expect(opened.map((stream) => stream.status)).toEqual(opened.map(() => 200));
    const refused = await fetch(`${host.baseUrl}/eventsource/?types=*&closeafter=no&ping=0`, {
      headers: { authorization: 'Bearer token-carol' },
    });
    expect(refused.status).toBe(429);
    opened[0]?.close();
    // The server notices the closed socket on its own schedule; poll for the freed slot.
    const reopened = await pollUntil(
      async () => {
        const retry = await openEventStream(`${host.baseUrl}/eventsource/?types=*&closeafter=no&ping=0`, 'token-carol');
        streams.push(retry);
        return retry.status === 200 ? retry : undefined;
      },
      5000,
      'a freed event stream slot',
    );
    expect(reopened.status).toBe(200);
  });
});

describe('EventSource push in the full sandbox', () => {
  it('sends a StateChange within 200 ms of mail arriving over SMTP', async () => {
    const sandbox = await startTestSandbox();
    const inbox = await signUpInbox(sandbox, 'listener');
    const session = (await (
      await fetch(`${sandbox.apiUrl}/.well-known/jmap`, { headers: { authorization: `Bearer ${inbox.capability}` } })
    ).json()) as { eventSourceUrl: string };
    const url = session.eventSourceUrl.replace('{types}', 'Email').replace('{closeafter}', 'no').replace('{ping}', '0');
    const stream = await openEventStream(url, inbox.capability);
    streams.push(stream);
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    const sent = performance.now();
    await transport.sendMail({ from: 'outside@example.org', to: inbox.address, subject: 'pushed', text: 'hello' });
    const acknowledged = performance.now();
    const event = await stream.next(2000);
    const change = JSON.parse(event?.data ?? '{}') as { changed: Record<string, Record<string, string>> };
    expect(change.changed[inbox.address]).toHaveProperty('Email');
    console.log(
      `StateChange after SMTP delivery: ${Math.round((event?.at ?? 0) - sent)} ms after DATA began, ${Math.round(Math.max(0, (event?.at ?? 0) - acknowledged))} ms after the 250 reply`,
    );
    expect(Math.max(0, (event?.at ?? Infinity) - acknowledged)).toBeLessThan(200);
    stream.close();
  });
});
