import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { settings } from '../../../src/config.js';
import { serverDescription, serverWebsite } from '../../../src/mcp/server.js';

const root = new URL('../../../', import.meta.url);

const serverJson = z.object({
  name: z.string(),
  version: z.string(),
  description: z.string().max(100),
  websiteUrl: z.string(),
  packages: z.array(
    z.object({
      registryType: z.literal('npm'),
      identifier: z.string(),
      version: z.string(),
      transport: z.object({ type: z.literal('stdio') }),
      packageArguments: z.array(z.object({ type: z.literal('positional'), value: z.string() })),
      environmentVariables: z.array(z.object({ name: z.string(), description: z.string(), isSecret: z.boolean() })),
    }),
  ),
});

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(new URL(path, root), 'utf8'));
}

describe('server.json for the official MCP registry', () => {
  it('names the package, its version and mcpName exactly as package.json does', async () => {
    const server = serverJson.parse(await readJson('server.json'));
    const pkg = z
      .object({ name: z.string(), version: z.string(), mcpName: z.string() })
      .parse(await readJson('package.json'));
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    expect(server.packages[0]).toMatchObject({ identifier: pkg.name, version: pkg.version });
  });

  it('describes the server as the running server describes itself (implementation info)', async () => {
    const server = serverJson.parse(await readJson('server.json'));
    expect(server.description).toBe(serverDescription);
    expect(server.websiteUrl).toBe(serverWebsite);
  });

  it('starts the stdio server with the `mcp` argument', async () => {
    const server = serverJson.parse(await readJson('server.json'));
    expect(server.packages[0]?.packageArguments).toEqual([
      expect.objectContaining({ type: 'positional', value: 'mcp' }),
    ]);
  });

  it('declares every AGENT_MAILBOX_* setting the server reads, and only those', async () => {
    const server = serverJson.parse(await readJson('server.json'));
    const declared = server.packages[0]?.environmentVariables.map((v) => v.name).sort();
    const known = Object.values(settings)
      .map((s) => s.env)
      .sort();
    expect(declared).toEqual(known);
  });
});
