import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox.js';
import { connect, mailUsing } from './oauth-test-client.js';

// The gate reads the body of a request whose grant lacks a scope; these are the edges of that read.
const sandbox = await startTestSandbox({ oauth: { autoApprove: [{ person: 'Ada', inboxes: ['ada-inbox'] }] } });
const readOnly = (await connect(sandbox, { scope: 'mail.read' })).tokens;
const accountId = sandbox.oauth.autoApproved[0]?.inboxes[0]?.accountId ?? '';
const headers = {
  authorization: `Bearer ${readOnly.access_token}`,
  'x-service-account-id': accountId,
  'content-type': 'application/json',
};

/** POSTs /jmap with the body in the given chunks (chunked transfer encoding when there is no length). */
function postChunks(
  chunks: Array<string | Buffer>,
  extraHeaders: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${sandbox.apiUrl}/jmap`,
      { method: 'POST', headers: { ...headers, ...extraHeaders } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('the JMAP gate reading a body for the scope check', () => {
  it('passes a chunked body on unchanged after reading it', async () => {
    const text = JSON.stringify({ using: mailUsing, methodCalls: [['Mailbox/get', { properties: ['role'] }, 'm']] });
    const { status, body } = await postChunks([text.slice(0, 20), text.slice(20)]);
    expect(status).toBe(200);
    expect(JSON.parse(body)).toMatchObject({
      methodResponses: [['Mailbox/get', { accountId: 'ada-inbox@agent-mailbox.test' }, 'm']],
    });
  });

  it('leaves a body that is no JSON to the mail store, which answers notJSON', async () => {
    const { status, body } = await postChunks(['{not json']);
    expect(status).toBe(400);
    expect(JSON.parse(body)).toMatchObject({ type: 'urn:ietf:params:jmap:error:notJSON' });
  });

  it('refuses a body over 10 MiB with 413, declared or streamed, without keeping it', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);
    const declared = await postChunks([big], { 'content-length': String(big.length) });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/larger than 10485760 bytes/),
    });
    const streamed = await postChunks([big.subarray(0, 6 * 1024 * 1024), big.subarray(6 * 1024 * 1024)]);
    expect(streamed.status).toBe(413);
  });
});
