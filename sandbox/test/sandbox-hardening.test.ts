import { describe, expect, it } from 'vitest';
import { jmapCapabilities } from '../src/wire-constants.js';
import { signUpInbox, startTestSandbox } from './helpers/sandbox.js';
import { buildRequest, rawHttp } from './helpers/raw-http.js';

const sandbox = await startTestSandbox({ allowedHosts: ['sandbox.example'] });
const inbox = await signUpInbox(sandbox, 'fuzzed');
const authPort = Number(new URL(sandbox.authUrl).port);
const apiPort = Number(new URL(sandbox.apiUrl).port);
const account = encodeURIComponent(inbox.address);
const using = Object.values(jmapCapabilities);

/** mulberry32: a tiny seeded generator, so every run sends the same requests. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Deep values stay JSON text: building them as objects would overflow this test's own stack in JSON.stringify.
const deepText: Record<string, string> = {
  '@deepArray': `${'['.repeat(5000)}1${']'.repeat(5000)}`,
  '@deepObject': `${'{"inner":'.repeat(5000)}"x"${'}'.repeat(5000)}`,
  '@deepAnd': `${'{"operator":"AND","conditions":['.repeat(10_000)}{"subject":"x"}${']}'.repeat(10_000)}`,
};

/** JSON.stringify, with the "@deep…" placeholder strings swapped for their deep JSON text. */
function toJson(value: unknown): string {
  return JSON.stringify(value).replace(/"(@deep\w+)"/g, (whole, name: string) => deepText[name] ?? whole);
}

const badSegments = [
  '%E0%A4%A',
  '%',
  '%zz',
  '%00',
  '%C0%AF',
  '..',
  '%2e%2e',
  'x'.repeat(3000),
  '%FF%FE',
  '\u00e9',
  '%0D%0A',
];
const oddValues: unknown[] = [
  null,
  true,
  -1,
  1.5,
  'yesterday',
  'big',
  '',
  [],
  {},
  [null],
  { a: null },
  'x'.repeat(5000),
  1e308,
  ['a', 1],
];
const newMethodNames = [
  'Mailbox/set',
  'Mailbox/queryChanges',
  'Email/import',
  'Email/copy',
  'Email/parse',
  'Email/queryChanges',
  'Identity/set',
  'Identity/changes',
  'VacationResponse/get',
  'VacationResponse/set',
];
const methodNames = [
  'Core/echo',
  'Mailbox/get',
  'Mailbox/query',
  'Email/get',
  'Email/query',
  'Email/set',
  'Email/changes',
  'Thread/get',
  'Identity/get',
  'EmailSubmission/get',
  'EmailSubmission/set',
  'SearchSnippet/get',
  'Blob/get',
  'Blob/upload',
  'Nope/nope',
  ...newMethodNames,
];
const argumentNames = [
  'accountId',
  'ids',
  'properties',
  'filter',
  'sort',
  'position',
  'limit',
  'anchor',
  'create',
  'update',
  'destroy',
  'sinceState',
  'maxChanges',
  'emailIds',
  'blobIds',
  'bodyProperties',
  'maxBodyValueBytes',
  '#ids',
  'ifInState',
  'onSuccessUpdateEmail',
  'emails',
  'onDestroyRemoveEmails',
  'sinceQueryState',
  'upToId',
  'fromAccountId',
  'sortAsTree',
  'filterAsTree',
  'collapseThreads',
];
const filterValues: unknown[] = [
  { before: 'yesterday' },
  { minSize: 'big' },
  { maxSize: -3 },
  { hasAttachment: 'yes' },
  { header: [] },
  { header: [1, 2, 3] },
  { inMailboxOtherThan: 'x' },
  { operator: 'XOR', conditions: [] },
  { operator: 'AND', conditions: [null] },
  { operator: 'AND' },
  { operator: 'OR', conditions: 'x' },
  { unknown: 1 },
  '@deepAnd',
];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

/** One malformed request against one of the two hosts. */
function generate(random: () => number): { port: number; request: Buffer; label: string } {
  const kind = Math.floor(random() * 7);
  const auth = { authorization: `Bearer ${inbox.capability}` };
  const host = (port: number) => ({ host: `127.0.0.1:${port}` });
  switch (kind) {
    case 0: {
      const target = pick(random, [
        `/download/${pick(random, badSegments)}/x/y`,
        `/download/${account}/${pick(random, badSegments)}/x`,
        `/download/${account}/b/${pick(random, badSegments)}`,
        `/upload/${pick(random, badSegments)}/`,
        `/${pick(random, badSegments)}`,
        '//',
        '/\\\\',
        `/eventsource/?types=${pick(random, badSegments)}`,
      ]);
      return {
        port: apiPort,
        request: buildRequest(
          pick(random, ['GET', 'POST', 'PUT', 'DELETE']),
          target,
          { ...host(apiPort), ...auth },
          random() < 0.5 ? '' : '{}',
        ),
        label: `url ${target.slice(0, 40)}`,
      };
    }
    case 1: {
      const type = pick(random, [
        '%0D%0AX-Evil:%201',
        'text/plain%0A',
        '%00',
        'a'.repeat(400),
        'text/plain;%20charset=%22%0D%22',
        '\u00ff',
      ]);
      return {
        port: apiPort,
        request: buildRequest('GET', `/download/${account}/missing/x?type=${type}`, { ...host(apiPort), ...auth }),
        label: `download type ${type.slice(0, 20)}`,
      };
    }
    case 2: {
      const body = pick(random, [
        '',
        'null',
        '[]',
        '{',
        '{"using":1}',
        '{"using":[],"methodCalls":{}}',
        '\u0000',
        deepText['@deepArray'] as string,
        '"x"',
      ]);
      return {
        port: apiPort,
        request: buildRequest(
          'POST',
          '/jmap',
          {
            ...host(apiPort),
            ...auth,
            'content-type': pick(random, ['application/json', 'text/plain', 'application/json; charset=utf-8', '']),
          },
          body,
        ),
        label: `body ${body.slice(0, 20)}`,
      };
    }
    case 3: {
      const args: Record<string, unknown> = { accountId: random() < 0.8 ? inbox.address : pick(random, oddValues) };
      for (let count = Math.floor(random() * 4); count > 0; count -= 1)
        args[pick(random, argumentNames)] = random() < 0.3 ? pick(random, filterValues) : pick(random, oddValues);
      if (random() < 0.2) args['deep'] = '@deepObject';
      const body = toJson({ using, methodCalls: [[pick(random, methodNames), args, 'c']] });
      return {
        port: apiPort,
        request: buildRequest('POST', '/jmap', { ...host(apiPort), ...auth, 'content-type': 'application/json' }, body),
        label: `method ${body.slice(0, 60)}`,
      };
    }
    case 4: {
      const authorization = pick(random, [
        'Bearer',
        'Bearer x.y.z',
        'Basic Zm9vOmJhcg==',
        `Bearer ${inbox.capability}x`,
        'Bearer \u00e9',
        `bearer  ${'a'.repeat(8000)}`,
      ]);
      const port = random() < 0.5 ? apiPort : authPort;
      const target = pick(random, [
        '/.well-known/jmap',
        '/jmap',
        '/api/v1/capability',
        '/api/v1/session',
        '/eventsource/?types=*&closeafter=no&ping=0',
      ]);
      return {
        port,
        request: buildRequest(
          target.startsWith('/api') || target === '/jmap' ? 'POST' : 'GET',
          target,
          { ...host(port), authorization },
          '',
        ),
        label: `auth ${authorization.slice(0, 20)}`,
      };
    }
    case 5: {
      const body = pick(random, [
        '',
        '{',
        '[]',
        '{"username":1}',
        '{"powHex":"zz","nonce":"x","username":"a"}',
        deepText['@deepArray'] as string,
        '{"apiKey":null}',
      ]);
      const target = pick(random, [
        '/api/v1/session',
        '/api/v1/challenge',
        '/api/v1/capability',
        `/api/v1/${pick(random, badSegments)}`,
        '//',
        '/.well-known/jwks.json?x=%',
      ]);
      return {
        port: authPort,
        request: buildRequest(
          pick(random, ['POST', 'GET', 'PATCH']),
          target,
          {
            ...host(authPort),
            authorization: pick(random, ['Bearer a.b.c', 'Bearer', '']),
            'content-type': 'application/json',
          },
          body,
        ),
        label: `auth host ${target.slice(0, 30)}`,
      };
    }
    default: {
      const query = `types=${pick(random, ['*', 'Email', 'Nope', '', '%E0%A4%A'])}&closeafter=${pick(random, ['state', 'no', 'maybe', ''])}&ping=${pick(random, ['0', '-1', 'abc', '999999', '1.5'])}`;
      return {
        port: apiPort,
        request: buildRequest('GET', `/eventsource/?${query}`, { ...host(apiPort), ...auth }),
        label: `eventsource ${query}`,
      };
    }
  }
}

describe('sandbox hardening', () => {
  it('answers 600 seeded malformed requests with 4xx (or 2xx), never 5xx', async () => {
    const random = seeded(20261123);
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    for (let index = 0; index < 600; index += 1) {
      const { port, request, label } = generate(random);
      // closeafter=no streams stay open, so event-source requests that succeed are cut after the head.
      const response = await rawHttp(port, request).catch((error: Error) => ({ status: 0, body: error.message }));
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status >= 500 || response.status === 0)
        failures.push(`${response.status} ${label}: ${response.body.slice(0, 200)}`);
      if (response.status >= 400 && response.status < 500 && response.body.startsWith('{')) {
        const body = JSON.parse(response.body) as Record<string, unknown>;
        expect(body['error'] !== undefined || body['type'] !== undefined, `${label}: ${response.body}`).toBe(true);
      }
    }
    console.log(`fuzz: 600 requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    expect(failures).toEqual([]);
  }, 120_000);

  it('answers 400 seeded odd calls of the new RFC 8621 methods without a serverFail', async () => {
    const random = seeded(20261125);
    const objectValues: unknown[] = [
      ...oddValues,
      { name: null },
      { name: 'x', parentId: {} },
      { role: 5 },
      { blobId: [], mailboxIds: 'x' },
      { mailboxIds: { x: false } },
      { email: null },
      { isEnabled: 'yes', fromDate: 1 },
      { sortOrder: -1 },
      { keywords: { '': true } },
    ];
    const failures: string[] = [];
    for (let index = 0; index < 400; index += 1) {
      const args: Record<string, unknown> = { accountId: inbox.address };
      for (let count = 1 + Math.floor(random() * 3); count > 0; count -= 1) {
        const name = pick(random, [
          'create',
          'update',
          'emails',
          'destroy',
          'blobIds',
          'sinceQueryState',
          'fromAccountId',
          'filter',
          'sort',
          'properties',
          'ids',
          'upToId',
          'maxChanges',
        ]);
        args[name] =
          ['create', 'update', 'emails'].includes(name) && random() < 0.7
            ? { [pick(random, ['a', 'singleton', inbox.address, '#a'])]: pick(random, objectValues) }
            : pick(random, objectValues);
      }
      const method = pick(random, newMethodNames);
      const response = await fetch(`${sandbox.apiUrl}/jmap`, {
        method: 'POST',
        headers: { authorization: `Bearer ${inbox.capability}`, 'content-type': 'application/json' },
        body: JSON.stringify({ using, methodCalls: [[method, args, 'c']] }),
      });
      const text = await response.text();
      if (response.status !== 200 || /serverFail/.test(text))
        failures.push(`${response.status} ${method} ${JSON.stringify(args).slice(0, 160)}: ${text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('never puts exception text into serverFail', async () => {
    for (const filter of [
      { operator: 'AND', conditions: [null] },
      '@deepAnd',
      { before: 'yesterday' },
      { minSize: 'big' },
    ]) {
      const response = await fetch(`${sandbox.apiUrl}/jmap`, {
        method: 'POST',
        headers: { authorization: `Bearer ${inbox.capability}`, 'content-type': 'application/json' },
        body: toJson({ using, methodCalls: [['Email/query', { accountId: inbox.address, filter }, 'q']] }),
      });
      const text = await response.text();
      expect(response.status, text).toBeLessThan(500);
      expect(text).not.toMatch(/serverFail|TypeError|RangeError|Cannot read/);
    }
  });

  it('answers wrongly typed filter values and unknown properties with invalidArguments', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['Email/query', { filter: { before: 'yesterday' } }],
      ['Email/query', { filter: { minSize: 'big' } }],
      ['Email/query', { filter: { hasAttachment: 'yes' } }],
      ['Email/query', { filter: { operator: 'AND', conditions: [null] } }],
      ['Email/query', { filter: { operator: 'OR', conditions: [{ header: [] }] } }],
      ['Thread/get', { ids: [], properties: ['bogus'] }],
      ['Identity/get', { properties: ['bogus'] }],
      ['EmailSubmission/get', { ids: [], properties: ['bogus'] }],
    ];
    const response = await fetch(`${sandbox.apiUrl}/jmap`, {
      method: 'POST',
      headers: { authorization: `Bearer ${inbox.capability}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        using,
        methodCalls: calls.map(([name, args], index) => [name, { accountId: inbox.address, ...args }, `c${index}`]),
      }),
    });
    const body = (await response.json()) as { methodResponses: [string, { type: string }, string][] };
    expect(body.methodResponses.map(([name, args]) => (name === 'error' ? args.type : name))).toEqual(
      calls.map(() => 'invalidArguments'),
    );
  });

  it('answers limits with the names it advertises', async () => {
    const wide = { operator: 'OR', conditions: Array.from({ length: 1001 }, () => ({ subject: 'x' })) };
    const tooDeep = `{"using":${JSON.stringify(using)},"methodCalls":[["Core/echo",${'{"a":'.repeat(100)}1${'}'.repeat(100)},"e"]]}`;
    const post = (body: string) =>
      fetch(`${sandbox.apiUrl}/jmap`, {
        method: 'POST',
        headers: { authorization: `Bearer ${inbox.capability}`, 'content-type': 'application/json' },
        body,
      });
    const filtered = (await (
      await post(
        JSON.stringify({ using, methodCalls: [['Email/query', { accountId: inbox.address, filter: wide }, 'q']] }),
      )
    ).json()) as { methodResponses: [string, { type: string; description: string }, string][] };
    expect(filtered.methodResponses[0]?.[1]).toMatchObject({
      type: 'unsupportedFilter',
      description: expect.stringMatching(/maxFilterConditions/),
    });
    const nested = await post(tooDeep);
    expect(nested.status).toBe(400);
    expect(await nested.json()).toMatchObject({ type: 'urn:ietf:params:jmap:error:limit', limit: 'maxRequestDepth' });
  });

  it('refuses a foreign Host on both hosts and accepts the names it was given', async () => {
    for (const port of [authPort, apiPort]) {
      for (const foreign of [
        'evil.example',
        `evil.example:${port}`,
        '127.0.0.1:1',
        `localhost.evil.example:${port}`,
        '',
      ]) {
        const response = await rawHttp(port, buildRequest('GET', '/.well-known/jwks.json', { host: foreign }));
        expect(response.status, foreign).toBe(421);
        expect(JSON.parse(response.body).error.hint).toMatch(/--allow-host/);
      }
      for (const allowed of [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        'localhost',
        `[::1]:${port}`,
        `sandbox.example:${port}`,
        'SANDBOX.example',
      ]) {
        const response = await rawHttp(port, buildRequest('GET', '/.well-known/jwks.json', { host: allowed }));
        expect(response.status, allowed).not.toBe(421);
      }
    }
  });
});
