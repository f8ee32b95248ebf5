import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtEntry, connectMcp, printStderrOnFailure, type McpConnection } from '../helpers/connect-mcp.js';
import { builtCli, offlineCliEnv } from '../helpers/run-cli.js';

// zod compiles a parser for each object schema from a string on its first parse unless told not to
// (src/start/zod-jitless.ts), which a short process never earns back. The setting is read at that first parse,
// so it works only while the bundle loads it before any module that parses: a change of import order
// would break it silently and pass every other test. The built CLI and server run here with a preload
// that writes down every function compiled from a string.

const run = promisify(execFile);
const repoRoot = new URL('../..', import.meta.url);

const counter = `
const { appendFileSync } = require('node:fs');
const Original = Function;
const note = () => appendFileSync(process.env.COMPILED_LOG, 'compiled\\n');
globalThis.Function = new Proxy(Original, {
  construct(target, args) { note(); return Reflect.construct(target, args); },
  apply(target, self, args) { note(); return Reflect.apply(target, self, args); },
});
`;

let root = '';
let server: McpConnection | undefined;
printStderrOnFailure(() => [server]);
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-mailbox-jitless-'));
  await writeFile(join(root, 'counter.cjs'), counter);
  await writeFile(join(root, 'compiled.log'), '');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(root, { recursive: true, force: true });
});

const compiled = async (): Promise<number> =>
  (await readFile(join(root, 'compiled.log'), 'utf8')).split('\n').filter(Boolean).length;

// Offline: nothing here may reach a host, and an unroutable URL proves it.
const offline = () => ({ ...offlineCliEnv(root), COMPILED_LOG: join(root, 'compiled.log') });

describe("zod's parsers in the built client", () => {
  it('are counted when zod compiles them (the preload sees what the bundle would do unset)', async () => {
    await run(
      process.execPath,
      [
        '-r',
        join(root, 'counter.cjs'),
        '--input-type=module',
        '-e',
        "import * as z from 'zod'; z.object({ a: z.string() }).parse({ a: 'x' });",
      ],
      { env: offline(), cwd: repoRoot },
    );
    expect(await compiled()).toBeGreaterThan(0);
  });

  it('are not compiled by a CLI command that parses its input, a preset and its settings', async () => {
    const failed = await run(
      process.execPath,
      ['-r', join(root, 'counter.cjs'), builtCli, 'jmap_request', '--ops-file', 'list_inbox'],
      { env: offline() },
    ).then(
      () => undefined,
      (error: { stderr: string }) => error.stderr,
    );
    // No inbox in the directory: the command ends at the account, after every parse before it.
    expect(failed).toMatch(/register/);
    expect(await compiled()).toBe(0);
  });

  it('are not compiled by the MCP server through a start, tools/list and a tool call', async () => {
    server = await connectMcp({ env: offline(), nodeArgs: ['-r', join(root, 'counter.cjs'), builtEntry, 'mcp'] });
    await server.client.listTools();
    await server.client.callTool({ name: 'help', arguments: { topic: 'presets' } });
    expect(await compiled()).toBe(0);
  });
});
