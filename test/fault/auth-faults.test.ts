import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { baseEnv, copyDir, expectBothDoorsKeepPromises, freshDir, registeredDir, timeoutMs } from './fault-case.js';
import { authProxy, hang, streamForever } from './fault-servers.js';

// Issue 10 item 7: an auth host that misbehaves, alone or as a proxy in front of the real sandbox.
const sandbox = await startTestSandbox();
const inbox = await registeredDir(sandbox, 'fault-auth');
const env = baseEnv(sandbox);
// Cases whose healthy legs run through the real sandbox (PoW, proxying) get a longer per-attempt
// deadline, so a loaded machine cannot turn them into timeout cases; the fault itself is immediate.
const slowLegs = { ...env, AGENT_MAILBOX_TIMEOUT_MS: '6000' };

describe('an auth host that breaks its promises, through the CLI and the MCP server', () => {
  it('never answers a sign-up', async () => {
    const fault = await hang();
    await expectBothDoorsKeepPromises({
      name: 'auth-hang',
      op: { kind: 'register', username: 'hang-user' },
      env: { ...env, AGENT_MAILBOX_AUTH_URL: fault.url },
      dir: freshDir,
      fault,
      code: /^timeout$/,
      says: new RegExp(`within ${timeoutMs} ms`),
    });
  });

  it('streams a challenge answer forever', async () => {
    const fault = await streamForever();
    await expectBothDoorsKeepPromises({
      name: 'auth-stream-forever',
      op: { kind: 'register', username: 'stream-user' },
      env: { ...env, AGENT_MAILBOX_AUTH_URL: fault.url },
      dir: freshDir,
      fault,
      code: /^response_too_large$/,
      says: /exceeded the limit of 65536 bytes/,
    });
  });

  it('echoes the apiKey of a login back in its error', async () => {
    const fault = await authProxy(sandbox.authUrl, { echoOn: '/api/v1/session' });
    await expectBothDoorsKeepPromises({
      name: 'auth-echo-apikey',
      op: { kind: 'jmap' },
      env: { ...slowLegs, AGENT_MAILBOX_AUTH_URL: fault.url },
      dir: () => copyDir(inbox, ['session.jwt', 'capability.jwt']),
      fault,
      code: /^auth_rejected$/,
      says: /HTTP 403/,
    });
  });

  it('echoes the session JWT of a capability request back in its error', async () => {
    const fault = await authProxy(sandbox.authUrl, { echoOn: '/api/v1/capability' });
    await expectBothDoorsKeepPromises({
      name: 'auth-echo-session',
      op: { kind: 'jmap' },
      env: { ...slowLegs, AGENT_MAILBOX_AUTH_URL: fault.url },
      dir: () => copyDir(inbox, ['capability.jwt']),
      fault,
      code: /^auth_rejected$/,
      says: /HTTP 403/,
    });
  });

  it('loses the answer to a sign-up after creating the inbox, and the client says so without resending', async () => {
    const fault = await authProxy(sandbox.authUrl, { loseSignUp: true });
    await expectBothDoorsKeepPromises({
      name: 'signup-answer-lost',
      op: { kind: 'register', username: 'lost-user' },
      env: { ...slowLegs, AGENT_MAILBOX_AUTH_URL: fault.url },
      dir: freshDir,
      fault,
      code: /^signup_answer_lost$/,
      says: /sign-up of "lost-userm?" was sent, but its answer was lost.*may have been created/,
    });
    // One sign-up per door, never a resend with the spent challenge.
    expect(fault.signUps()).toBe(2);
  });
});
