import { describe, it } from 'vitest';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import {
  baseEnv,
  copyDir,
  expectBothDoorsKeepPromises,
  registeredDir,
  timeoutMs,
  type FaultCase,
} from './fault-case.js';
import {
  busy,
  dripHeaders,
  echoSecrets,
  hang,
  resetMidBody,
  streamForever,
  type FaultServer,
} from './fault-servers.js';

// Issue 10 item 7: a JMAP host that misbehaves, behind real tokens from the real sandbox.
const sandbox = await startTestSandbox();
const inbox = await registeredDir(sandbox, 'fault-jmap');

function jmapCase(name: string, fault: FaultServer, code: RegExp, says: RegExp): FaultCase {
  return {
    name,
    op: { kind: 'jmap' },
    env: { ...baseEnv(sandbox), AGENT_MAILBOX_API_URL: fault.url },
    dir: () => copyDir(inbox),
    fault,
    code,
    says,
  };
}

// One case at a time: run together, 16 client processes share 2 cores and each case's time is
// mostly its neighbours' start-up, which hides what the case itself costs.
describe('a JMAP host that breaks its promises, through the CLI and the MCP server', () => {
  it('never answers', async () => {
    await expectBothDoorsKeepPromises(
      jmapCase(
        'jmap-hang',
        await hang(),
        /^timeout$/,
        new RegExp(`no complete answer from http://127\\.0\\.0\\.1:\\d+ within ${timeoutMs} ms`),
      ),
    );
  });
  it('drips its headers', async () => {
    await expectBothDoorsKeepPromises(
      jmapCase('jmap-drip-headers', await dripHeaders(), /^timeout$/, new RegExp(`within ${timeoutMs} ms`)),
    );
  });
  it('streams a body forever', async () => {
    await expectBothDoorsKeepPromises(
      jmapCase('jmap-stream-forever', await streamForever(), /^response_too_large$/, /exceeded the limit of \d+ bytes/),
    );
  });
  it('resets the connection mid-body', async () => {
    await expectBothDoorsKeepPromises(
      jmapCase(
        'jmap-reset-mid-body',
        await resetMidBody(),
        /^network$/,
        /connection to http:\/\/127\.0\.0\.1:\d+ failed/,
      ),
    );
  });
  it('answers 503 with Retry-After every time', async () => {
    await expectBothDoorsKeepPromises(
      jmapCase('jmap-503-retry-after', await busy(503, 1), /^server_error$/, /HTTP 503/),
    );
  });
  it('answers 429 asking to wait an hour', async () => {
    await expectBothDoorsKeepPromises(
      jmapCase('jmap-429-retry-after-3600', await busy(429, 3600), /^rate_limited$/, /wait 3600 s/),
    );
  });
  it('echoes the Authorization header in a 500 problem detail', async () => {
    await expectBothDoorsKeepPromises(jmapCase('jmap-echo-500', await echoSecrets(500), /^server_error$/, /HTTP 500/));
  });
  it('echoes the Authorization header in a 401, twice', async () => {
    await expectBothDoorsKeepPromises(jmapCase('jmap-echo-401', await echoSecrets(401), /^auth_rejected$/, /HTTP 401/));
  });
});
