import { describe, expect, it } from 'vitest';
import type { JmapRequest } from '../../../src/jmap/jmap-types.js';
import { summarizeResponse } from '../../../src/jmap/summarize-response.js';

const request: JmapRequest = {
  using: [],
  methodCalls: [
    ['Email/set', { create: { draft: {} } }, 'draft'],
    ['EmailSubmission/set', { create: { send: {} } }, 'submit'],
    ['Email/get', { '#ids': {} }, 'get'],
  ],
};

describe('summarizeResponse', () => {
  it('reports success with one line naming each response', () => {
    const s = summarizeResponse(request, {
      methodResponses: [
        ['Email/set', { created: { draft: { id: 'e1' } } }, 'draft'],
        ['EmailSubmission/set', { created: { send: { id: 's1' } } }, 'submit'],
        ['Email/get', { list: [{}, {}] }, 'get'],
      ],
    });
    expect(s.ok).toBe(true);
    expect(s.failures).toEqual([]);
    expect(s.summaryLine).toBe('OK: 3 responses (Email/set 1 created, EmailSubmission/set 1 created, Email/get 2).');
  });

  it('turns a forbiddenFrom in notCreated into a failure that says From must be $INBOX', () => {
    const s = summarizeResponse(request, {
      methodResponses: [
        ['Email/set', { created: { draft: { id: 'e1' } } }, 'draft'],
        [
          'EmailSubmission/set',
          { notCreated: { send: { type: 'forbiddenFrom', description: 'not your address' } } },
          'submit',
        ],
      ],
    });
    expect(s.ok).toBe(false);
    expect(s.failures).toEqual([
      expect.objectContaining({
        callId: 'submit',
        method: 'EmailSubmission/set',
        level: 'record',
        set: 'notCreated',
        recordId: 'send',
        type: 'forbiddenFrom',
        description: 'not your address',
      }),
    ]);
    expect(s.failures[0]?.fix).toContain('$INBOX');
    expect(s.summaryLine).toContain(
      'call submit EmailSubmission/set notCreated "send": forbiddenFrom ("not your address")',
    );
  });

  it('names the method of a method-level error from the request by call id', () => {
    const s = summarizeResponse(request, {
      methodResponses: [
        ['error', { type: 'unknownMethod' }, 'draft'],
        ['error', { type: 'invalidResultReference', description: 'bad path' }, 'get'],
      ],
    });
    expect(s.failures.map((f) => [f.callId, f.method, f.level, f.type])).toEqual([
      ['draft', 'Email/set', 'method', 'unknownMethod'],
      ['get', 'Email/get', 'method', 'invalidResultReference'],
    ]);
    expect(s.failures[1]?.fix).toMatch(/earlier call/);
  });

  it('reports notUpdated and notDestroyed entries with their properties', () => {
    const s = summarizeResponse(request, {
      methodResponses: [
        [
          'Email/set',
          {
            notUpdated: { m1: { type: 'invalidProperties', properties: ['keywords/x'] } },
            notDestroyed: { m2: { type: 'notFound' } },
          },
          'draft',
        ],
      ],
    });
    expect(s.failures.map((f) => [f.set, f.recordId, f.type, f.properties])).toEqual([
      ['notUpdated', 'm1', 'invalidProperties', ['keywords/x']],
      ['notDestroyed', 'm2', 'notFound', undefined],
    ]);
  });

  it('has a fix for accountNotFound and an unknown type alike', () => {
    const s = summarizeResponse(request, {
      methodResponses: [
        ['error', { type: 'accountNotFound' }, 'get'],
        ['error', { type: 'weirdThing' }, 'draft'],
      ],
    });
    expect(s.failures[0]?.fix).toContain('$ACCOUNT_ID');
    expect(s.failures[1]?.fix).toContain('help topic');
  });
});
