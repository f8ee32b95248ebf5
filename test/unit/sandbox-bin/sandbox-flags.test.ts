import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { flagsOf, sandboxCommandInput as buildSandboxCommandInput } from '../../../src/sandbox-bin/sandbox-flags.js';
import { parseSandboxArgs } from '../../../sandbox/src/sandbox-args.js';
import {
  sandboxCommandInput as sandboxOwnInput,
  sandboxOptionsOf,
} from '../../../sandbox/src/sandbox-command-input.js';

// `agent-mailbox sandbox` declares the sandbox's flags for its own help and passes them on to the
// sandbox package's bin, which declares them again: the two declarations must agree, and every
// input the client accepts must reach the sandbox as the same options.

const sandboxCommandInput = buildSandboxCommandInput();
describe("the client's sandbox flags", () => {
  it('declare the same options, values and descriptions as the sandbox bin', () => {
    expect(z.toJSONSchema(sandboxCommandInput, { io: 'input' })).toEqual(
      z.toJSONSchema(sandboxOwnInput, { io: 'input' }),
    );
  });

  it('reach the sandbox as the options the sandbox itself would read from the input', () => {
    const input = sandboxCommandInput.parse({
      auth_port: '0',
      api_port: 4100,
      smtp_port: '2525',
      mcp_port: '0',
      difficulty: '2',
      domain: 'example.test',
      data_dir: '/tmp/a dir/with spaces',
      backend: 'embedded',
      session_ttl: '60',
      capability_ttl: '30',
      allow_host: 'box.local,other.local',
      oauth_auto_approve: ['alice:alice-inbox, ops@acme.test', 'bob:bob-inbox'],
      oauth_access_ttl: '900',
      hosted_jmap: 'off',
      json: true,
      dns_file: '/tmp/dns.json',
      authserv_id: 'mx.example.test',
    });
    expect(Object.keys(input).sort()).toEqual(Object.keys(sandboxCommandInput.shape).sort());
    expect(parseSandboxArgs(flagsOf(input))).toEqual(sandboxOptionsOf(sandboxOwnInput.parse(input)));
  });

  it('pass nothing for an absent or false option, the bare flag for true, a list flag once per value', () => {
    expect(flagsOf({ json: false, domain: undefined })).toEqual([]);
    expect(parseSandboxArgs(flagsOf(sandboxCommandInput.parse({})))).toEqual(
      sandboxOptionsOf(sandboxOwnInput.parse({})),
    );
    expect(flagsOf({ json: true, oauth_auto_approve: ['a:b', 'c:d'], seed: 3 })).toEqual([
      '--json',
      '--oauth-auto-approve',
      'a:b',
      '--oauth-auto-approve',
      'c:d',
      '--seed',
      '3',
    ]);
  });
});
