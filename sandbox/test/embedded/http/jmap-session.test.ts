import { sandboxLimitsCapability } from '../../../src/embedded/protocol/jmap-limits.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jmapCapabilities } from '../../../src/wire-constants.js';
import { startJmapTestHost, type JmapTestHost } from '../../helpers/jmap-test-host.js';

let host: JmapTestHost;
beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice');
});
afterAll(() => host.close());

const get = (path: string, bearer?: string) =>
  fetch(`${host.baseUrl}${path}`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });

describe('JMAP session discovery (RFC 8620 §2)', () => {
  it('answers an RFC 8620 session with absolute URLs and the address as account id', async () => {
    const response = await get('/.well-known/jmap', 'token-alice');
    expect(response.status).toBe(200);
    const session = (await response.json()) as Record<string, any>;
    const address = 'alice@agent-mailbox.test';
    expect(session['apiUrl']).toBe(`${host.baseUrl}/jmap`);
    expect(session['uploadUrl']).toBe(`${host.baseUrl}/upload/{accountId}/`);
    expect(session['downloadUrl']).toBe(`${host.baseUrl}/download/{accountId}/{blobId}/{name}?type={type}`);
    expect(session['eventSourceUrl']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/eventsource\//);
    expect(session['username']).toBe(address);
    expect(typeof session['state']).toBe('string');
    expect(Object.keys(session['capabilities']).sort()).toEqual(
      [...Object.values(jmapCapabilities), sandboxLimitsCapability].sort(),
    );
    expect(session['capabilities'][sandboxLimitsCapability]).toMatchObject({
      maxFilterConditions: 1000,
      maxFilterDepth: 16,
      maxRequestDepth: 64,
    });
    expect(session['capabilities'][jmapCapabilities.core]).toMatchObject({
      maxSizeUpload: expect.any(Number),
      maxConcurrentUpload: expect.any(Number),
      maxSizeRequest: expect.any(Number),
      maxConcurrentRequests: expect.any(Number),
      maxCallsInRequest: expect.any(Number),
      maxObjectsInGet: expect.any(Number),
      maxObjectsInSet: expect.any(Number),
      collationAlgorithms: expect.arrayContaining(['i;unicode-casemap']),
    });
    expect(session['primaryAccounts']).toEqual({
      [jmapCapabilities.mail]: address,
      [jmapCapabilities.submission]: address,
      [jmapCapabilities.vacationResponse]: address,
      [jmapCapabilities.blob]: address,
    });
    const account = session['accounts'][address];
    expect(account['accountCapabilities'][jmapCapabilities.mail]).toMatchObject({
      maxSizeAttachmentsPerEmail: expect.any(Number),
      emailQuerySortOptions: expect.arrayContaining(['receivedAt', 'subject']),
      mayCreateTopLevelMailbox: true,
      maxMailboxDepth: 10,
    });
    // RFC 8621 §1.3.3: the VacationResponse capability object is empty, in the session and the account.
    expect(session['capabilities'][jmapCapabilities.vacationResponse]).toEqual({});
    expect(account['accountCapabilities'][jmapCapabilities.vacationResponse]).toEqual({});
    expect(account['accountCapabilities'][jmapCapabilities.submission]).toEqual({
      maxDelayedSend: 0,
      submissionExtensions: {},
    });
    expect(account['accountCapabilities'][jmapCapabilities.blob]).toMatchObject({
      maxSizeBlobSet: expect.any(Number),
      maxDataSources: expect.any(Number),
      supportedDigestAlgorithms: expect.arrayContaining(['sha-256']),
    });
  });

  it('keeps the session state stable between fetches', async () => {
    const first = (await (await get('/.well-known/jmap', 'token-alice')).json()) as { state: string };
    const second = (await (await get('/.well-known/jmap', 'token-alice')).json()) as { state: string };
    expect(first.state).toBe(second.state);
  });

  it('refuses a missing bearer with 401 and the service error shape (spec §7.2)', async () => {
    const response = await get('/.well-known/jmap');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = (await response.json()) as { error: Record<string, string> };
    expect(Object.keys(body.error).sort()).toEqual(['docs_url', 'hint', 'message']);
    expect(body.error['hint']).toMatch(/capability/);
  });

  it('refuses an invalid or expired bearer with 401', async () => {
    const response = await get('/.well-known/jmap', 'not-a-valid-token');
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/invalid or expired/);
  });

  it('refuses a valid token for an inbox the store never created', async () => {
    const response = await get('/.well-known/jmap', 'token-nobody');
    expect(response.status).toBe(401);
  });

  it('serves the event source endpoint as text/event-stream (tests in jmap-push.test.ts)', async () => {
    const response = await get('/eventsource/?types=*&closeafter=state&ping=0', 'token-alice');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    await response.body?.cancel();
  });

  it('answers 404 with a hint on unknown paths', async () => {
    const response = await get('/nothing-here', 'token-alice');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { hint: string } }).error.hint).toMatch(/well-known\/jmap/);
  });

  it('serves the outbox as a JSON array without authentication', async () => {
    const response = await get('/sandbox/outbox');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
  });
});
