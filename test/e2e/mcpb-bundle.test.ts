import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';

// The one-click install for Claude Desktop: what `npm run build:mcpb` packs must be a valid bundle
// whose server starts from the unpacked folder alone and offers the same tools as the package.
const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const mcpb = join(root, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
const workDir = await mkdtemp(join(tmpdir(), 'agent-mailbox-mcpb-'));
afterAll(() => rm(workDir, { recursive: true, force: true }));

describe('the MCP Bundle', () => {
  it('packs a valid manifest, and the unpacked server starts and lists its tools', async () => {
    const bundle = join(workDir, 'agent-mailbox.mcpb');
    await run(process.execPath, [join(root, 'scripts/build-mcpb.mjs'), '--out', bundle]);
    const unpacked = join(workDir, 'unpacked');
    await run(process.execPath, [mcpb, 'unpack', bundle, unpacked]);
    const validated = await run(process.execPath, [mcpb, 'validate', join(unpacked, 'manifest.json')]);
    expect(validated.stdout).toMatch(/valid/i);
    const manifest = JSON.parse(await readFile(join(unpacked, 'manifest.json'), 'utf8')) as {
      version: string;
      server: { mcp_config: { args: string[]; env: Record<string, string> } };
      tools: { name: string; description: string }[];
      user_config: Record<string, unknown>;
    };
    expect(manifest.version).toBe(
      (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string }).version,
    );

    // Start it the way the host does: the manifest's own command line, ${__dirname} filled in.
    const args = manifest.server.mcp_config.args.map((arg) => arg.replace('${__dirname}', unpacked));
    // The bundled server knows the version it was packed as.
    expect((await run(process.execPath, [args[0]!, '--version'])).stdout).toBe(`${manifest.version}\n`);
    const client = new Client({ name: 'mcpb-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args,
        env: { PATH: process.env.PATH ?? '', HOME: workDir },
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(manifest.tools.map((t) => t.name).sort());
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['register', 'jmap_request', 'help']));
      // Within the manifest's 200 characters, and each a prefix of the tool's own text up to a word's end.
      for (const { name, description } of manifest.tools) {
        expect(description.length, name).toBeLessThanOrEqual(200);
        const full = tools.find((t) => t.name === name)?.description ?? '';
        const kept = description.replace(/…$/, '');
        expect(full.startsWith(kept), name).toBe(true);
        expect(full.slice(kept.length), name).toMatch(/^($|[\s.,;:)–-])/);
      }
      expect(manifest.user_config).toMatchObject({
        sandbox_dir: { type: 'directory' },
        credentials_dir: { type: 'directory' },
      });
      expect(manifest.server.mcp_config.env).toMatchObject({
        AGENT_MAILBOX_SANDBOX: '${user_config.sandbox_dir}',
        AGENT_MAILBOX_CREDENTIALS_DIR: '${user_config.credentials_dir}',
      });
    } finally {
      await client.close();
    }
  });
});
