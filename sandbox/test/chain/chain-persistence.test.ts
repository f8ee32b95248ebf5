import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/start-sandbox.js';
import { bearerOf, postCapability, signUpInbox, solveAndPostSession } from '../helpers/sandbox.js';

const dataDir = await mkdtemp(join(tmpdir(), 'sandbox-chain-persist-'));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('sandbox with --data-dir and the embedded store', () => {
  it('after a restart, the same apiKey logs in and reaches the same inbox with its mail', async () => {
    const first = await startSandbox({ difficulty: 2, dataDir });
    const inbox = await signUpInbox(first, 'kept-inbox').catch(async (error: unknown) => {
      await first.close();
      throw error;
    });
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: first.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    await transport
      .sendMail({ from: 'a@example.org', to: inbox.address, subject: 'before restart', text: 'kept' })
      .finally(() => first.close());

    const second = await startSandbox({ difficulty: 2, dataDir });
    try {
      const login = await solveAndPostSession(second, { apiKey: inbox.apiKey });
      expect(login.status).toBe(200);
      const capability = bearerOf(await postCapability(second.authUrl, bearerOf(login)));
      const session = (await (
        await fetch(`${second.apiUrl}/.well-known/jmap`, { headers: { authorization: `Bearer ${capability}` } })
      ).json()) as { apiUrl: string };
      const response = await fetch(session.apiUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${capability}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
          methodCalls: [
            ['Email/query', { accountId: inbox.address }, 'q'],
            [
              'Email/get',
              {
                accountId: inbox.address,
                '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
                properties: ['subject'],
              },
              'g',
            ],
          ],
        }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        methodResponses: Array<[string, { list?: Array<{ subject: string }> }, string]>;
      };
      expect(body.methodResponses[1]?.[1].list?.map((email) => email.subject)).toEqual(['before restart']);
    } finally {
      await second.close();
    }
  });
});
