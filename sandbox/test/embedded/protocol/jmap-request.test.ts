import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jmapCapabilities } from '../../../src/wire-constants.js';
import { allUsing, mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../helpers/jmap-test-host.js';

let host: JmapTestHost;
const alice = 'alice@agent-mailbox.test';
beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice', 'bob');
});
afterAll(() => host.close());

const post = (body: string, contentType = 'application/json') =>
  fetch(`${host.baseUrl}/jmap`, {
    method: 'POST',
    headers: { authorization: 'Bearer token-alice', 'content-type': contentType },
    body,
  });

async function problem(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get('content-type')).toMatch(/problem\+json/);
  return (await response.json()) as Record<string, unknown>;
}

describe('request-level errors (RFC 8620 §3.6.1)', () => {
  it('answers notJSON for a body that is not JSON', async () => {
    const response = await post('{not json');
    expect(response.status).toBe(400);
    expect((await problem(response))['type']).toBe('urn:ietf:params:jmap:error:notJSON');
  });

  it('answers notJSON for a Content-Type other than application/json', async () => {
    const response = await post(JSON.stringify({ using: [], methodCalls: [] }), 'text/plain');
    expect(response.status).toBe(400);
    expect((await problem(response))['type']).toBe('urn:ietf:params:jmap:error:notJSON');
  });

  it('answers notRequest for JSON that is no Request object', async () => {
    const response = await post(JSON.stringify({ using: [jmapCapabilities.core], methodCalls: [['Core/echo', {}]] }));
    expect(response.status).toBe(400);
    expect((await problem(response))['type']).toBe('urn:ietf:params:jmap:error:notRequest');
  });

  it('answers unknownCapability when using lists a capability the host lacks', async () => {
    const response = await post(
      JSON.stringify({ using: [jmapCapabilities.core, 'urn:example:nope'], methodCalls: [] }),
    );
    expect(response.status).toBe(400);
    const body = await problem(response);
    expect(body['type']).toBe('urn:ietf:params:jmap:error:unknownCapability');
    expect(body['detail']).toMatch(/urn:example:nope/);
  });

  it('answers limit maxCallsInRequest for 51 calls', async () => {
    const calls = Array.from({ length: 51 }, (_, index) => ['Core/echo', {}, `c${index}`]);
    const response = await post(JSON.stringify({ using: [jmapCapabilities.core], methodCalls: calls }));
    expect(response.status).toBe(400);
    expect(await problem(response)).toMatchObject({
      type: 'urn:ietf:params:jmap:error:limit',
      limit: 'maxCallsInRequest',
    });
  });

  it('answers limit maxSizeRequest for a body beyond 10 MiB', async () => {
    const padding = 'x'.repeat(10 * 1024 * 1024);
    const response = await post(
      JSON.stringify({ using: [jmapCapabilities.core], methodCalls: [['Core/echo', { padding }, 'c']] }),
    );
    expect(response.status).toBe(400);
    expect(await problem(response)).toMatchObject({
      type: 'urn:ietf:params:jmap:error:limit',
      limit: 'maxSizeRequest',
    });
  });
});

describe('method calls (RFC 8620 §3.3–3.6.2)', () => {
  it('echoes Core/echo arguments and runs calls in order', async () => {
    const responses = await host.call('alice', [
      ['Core/echo', { hello: 'wörld', n: 1 }, 'a'],
      ['Core/echo', { n: 2 }, 'b'],
    ]);
    expect(responses).toEqual([
      ['Core/echo', { hello: 'wörld', n: 1 }, 'a'],
      ['Core/echo', { n: 2 }, 'b'],
    ]);
  });

  it('answers unknownMethod for a method it does not know and carries on with the next call', async () => {
    const responses = await host.call('alice', [
      ['Email/frobnicate', {}, 'a'],
      ['Core/echo', { ok: true }, 'b'],
    ]);
    expect(responses[0]).toEqual(['error', expect.objectContaining({ type: 'unknownMethod' }), 'a']);
    expect(responses[1]).toEqual(['Core/echo', { ok: true }, 'b']);
  });

  it('answers every RFC 8621 method agents use with its own response, never unknownMethod', async () => {
    const calls = [
      'Mailbox/set',
      'Mailbox/query',
      'Mailbox/queryChanges',
      'Email/import',
      'Email/copy',
      'Email/parse',
      'Email/queryChanges',
      'Identity/set',
      'Identity/changes',
      'VacationResponse/get',
      'VacationResponse/set',
    ].map((name, index) => [name, { accountId: alice }, `c${index}`]);
    const responses = await host.call('alice', calls);
    for (const [index, response] of responses.entries()) {
      expect(response[1]['type'], String(calls[index]?.[0])).not.toBe('unknownMethod');
    }
  });

  it('answers unknownMethod when the capability of a method is missing from using', async () => {
    const responses = await host.call(
      'alice',
      [['Identity/get', { accountId: alice }, 'a']],
      [jmapCapabilities.core, jmapCapabilities.mail],
    );
    expect(responses[0]?.[1]).toMatchObject({ type: 'unknownMethod' });
  });

  it('answers invalidArguments for arguments of the wrong type', async () => {
    const responses = await host.call('alice', [['Email/query', { accountId: alice, limit: 'ten' }, 'a']]);
    expect(responses[0]).toEqual(['error', expect.objectContaining({ type: 'invalidArguments' }), 'a']);
  });

  it('answers accountNotFound for any accountId but the bearer own, so no inbox is reachable from another', async () => {
    const responses = await host.call('alice', [
      ['Mailbox/get', { accountId: 'bob@agent-mailbox.test' }, 'a'],
      ['Email/query', { accountId: 'bob@agent-mailbox.test' }, 'b'],
    ]);
    expect(responses.map((response) => [response[0], response[1]['type']])).toEqual([
      ['error', 'accountNotFound'],
      ['error', 'accountNotFound'],
    ]);
  });

  it('answers stateMismatch when ifInState is stale', async () => {
    const responses = await host.call('alice', [
      ['Email/set', { accountId: alice, ifInState: 'stale-state', destroy: [] }, 'a'],
    ]);
    expect(responses[0]?.[1]).toMatchObject({ type: 'stateMismatch' });
  });

  it('answers requestTooLarge beyond maxObjectsInGet and maxObjectsInSet', async () => {
    const ids = Array.from({ length: 501 }, (_, index) => `M${index}`);
    const responses = await host.call('alice', [
      ['Email/get', { accountId: alice, ids }, 'get'],
      ['Email/set', { accountId: alice, destroy: ids }, 'set'],
    ]);
    expect(responses.map((response) => response[1]['type'])).toEqual(['requestTooLarge', 'requestTooLarge']);
  });

  it('answers invalidArguments for an unknown Email property', async () => {
    const responses = await host.call('alice', [
      ['Email/get', { accountId: alice, ids: [], properties: ['subject', 'nonsense'] }, 'a'],
    ]);
    expect(responses[0]?.[1]).toMatchObject({ type: 'invalidArguments' });
  });

  it('answers cannotCalculateChanges for an unknown state', async () => {
    const responses = await host.call('alice', [['Email/changes', { accountId: alice, sinceState: 'nope' }, 'a']]);
    expect(responses[0]?.[1]).toMatchObject({ type: 'cannotCalculateChanges' });
  });
});

describe('result references (RFC 8620 §3.7)', () => {
  it('resolves a reference to a list and maps arrays with *', async () => {
    const ids = await mailboxIds(host, 'alice');
    const responses = await host.call('alice', [
      ['Mailbox/query', { accountId: alice, filter: { role: 'inbox' } }, 'q'],
      [
        'Mailbox/get',
        {
          accountId: alice,
          '#ids': { resultOf: 'q', name: 'Mailbox/query', path: '/ids' },
          properties: ['name', 'role'],
        },
        'g',
      ],
      ['Core/echo', { '#names': { resultOf: 'g', name: 'Mailbox/get', path: '/list/*/name' } }, 'e'],
      ['Mailbox/get', { accountId: alice, ids: null, properties: ['name'] }, 'all'],
      ['Core/echo', { '#first': { resultOf: 'all', name: 'Mailbox/get', path: '/list/0/name' } }, 'f'],
    ]);
    expect(resultOf(responses, 'q')['ids']).toEqual([ids['inbox']]);
    expect(resultOf(responses, 'g')['list']).toEqual([{ id: ids['inbox'], name: 'Inbox', role: 'inbox' }]);
    expect(resultOf(responses, 'e')).toEqual({ names: ['Inbox'] });
    expect(resultOf(responses, 'f')).toEqual({ first: 'Inbox' });
  });

  it('flattens arrays met under * (RFC 8620 §3.7)', async () => {
    const responses = await host.call('alice', [
      ['Core/echo', { groups: [{ ids: ['a', 'b'] }, { ids: ['c'] }] }, 'src'],
      ['Core/echo', { '#all': { resultOf: 'src', name: 'Core/echo', path: '/groups/*/ids' } }, 'dst'],
    ]);
    expect(resultOf(responses, 'dst')).toEqual({ all: ['a', 'b', 'c'] });
  });

  it('decodes ~0 and ~1 escapes of JSON pointers', async () => {
    const responses = await host.call('alice', [
      ['Core/echo', { 'a/b': { 'c~d': 42 } }, 'src'],
      ['Core/echo', { '#v': { resultOf: 'src', name: 'Core/echo', path: '/a~1b/c~0d' } }, 'dst'],
    ]);
    expect(resultOf(responses, 'dst')).toEqual({ v: 42 });
  });

  it('answers invalidResultReference for an unknown call id, a wrong name, a missing path and a failed call', async () => {
    const responses = await host.call('alice', [
      ['Email/frobnicate', {}, 'bad'],
      ['Core/echo', { x: 1 }, 'ok'],
      ['Core/echo', { '#v': { resultOf: 'nowhere', name: 'Core/echo', path: '/x' } }, 'r1'],
      ['Core/echo', { '#v': { resultOf: 'ok', name: 'Email/get', path: '/x' } }, 'r2'],
      ['Core/echo', { '#v': { resultOf: 'ok', name: 'Core/echo', path: '/y/z' } }, 'r3'],
      ['Core/echo', { '#v': { resultOf: 'bad', name: 'Email/frobnicate', path: '/x' } }, 'r4'],
    ]);
    for (const callId of ['r1', 'r2', 'r3', 'r4']) {
      expect(resultOf(responses, callId, 'error')).toMatchObject({ type: 'invalidResultReference' });
    }
  });

  it('answers invalidArguments when an argument is given both plain and as a reference', async () => {
    const responses = await host.call('alice', [
      ['Core/echo', { x: 1 }, 'ok'],
      ['Core/echo', { v: 1, '#v': { resultOf: 'ok', name: 'Core/echo', path: '/x' } }, 'r'],
    ]);
    expect(resultOf(responses, 'r', 'error')).toMatchObject({ type: 'invalidArguments' });
  });

  it('accepts the full using list of every advertised capability', async () => {
    const { status } = await host.request('alice', [['Core/echo', {}, 'a']], allUsing);
    expect(status).toBe(200);
  });
});
