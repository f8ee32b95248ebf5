import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';

// Every `claude mcp add` line of the docs, parsed as `claude mcp add --help` documents the command:
// `claude mcp add [options] <name> <commandOrUrl> [args...]`, where `-e, --env <env...>` (and
// `-H, --header`) take several values. Claude Code parses it with commander, so commander with the
// same declarations reads a line the way `claude` does: a name after `-e K=V` is taken as a second
// variable ("Invalid environment variable format: agent-mailbox").
const files = ['README.md', 'docs/hosts.md'];

/** Splits a command line into words as sh does for these lines: spaces, single and double quotes. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

interface McpAdd {
  name: string;
  command: string;
  args: string[];
  env: string[];
  headers: string[];
  scope: string;
  transport: string;
}

function parseMcpAdd(line: string): McpAdd {
  let parsed: McpAdd | undefined;
  const add = new Command('add')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
    .option('-s, --scope <scope>', 'Configuration scope (local, user, or project)', 'local')
    .option('-t, --transport <transport>', 'Transport type (stdio, sse, http)')
    .option('-e, --env <env...>', 'Set environment variables (e.g. -e KEY=value)')
    .option('-H, --header <header...>', 'Set headers')
    .argument('<name>')
    .argument('<commandOrUrl>')
    .argument('[args...]')
    .action(
      (
        name: string,
        command: string,
        args: string[],
        options: { env?: string[]; header?: string[]; scope: string; transport?: string },
      ) => {
        parsed = {
          name,
          command,
          args,
          env: options.env ?? [],
          headers: options.header ?? [],
          scope: options.scope,
          transport: options.transport ?? 'stdio',
        };
      },
    );
  const words = shellWords(line);
  expect(words.slice(0, 3)).toEqual(['claude', 'mcp', 'add']);
  add.parse(words.slice(3), { from: 'user' });
  if (!parsed) throw new Error(`not parsed: ${line}`);
  return parsed;
}

/** The `claude mcp add` lines of a Markdown file: in code blocks, and in inline code (wrapped lines joined). */
function mcpAddLines(text: string): string[] {
  const inBlocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.split('\n'))
    .filter((l) => l.startsWith('claude mcp add'));
  // A bare `claude mcp add` names the command, it is not a line to run.
  const inline = [...text.matchAll(/`(claude mcp add [^`]+)`/g)].map((m) => m[1]!.replace(/\s*\n\s*/g, ' '));
  return [...inBlocks, ...inline];
}

describe('the claude mcp add lines of the docs', () => {
  it('would catch the line that put -e before the name', () => {
    const wrong = parseMcpAdd(
      'claude mcp add --scope user -e AGENT_MAILBOX_CREDENTIALS_DIR=/x agent-mailbox -- node /x/bin/agent-mailbox.js mcp',
    );
    expect(wrong.name).not.toBe('agent-mailbox');
    expect(wrong.env).toContain('agent-mailbox');
  });

  it('reads an HTTP server line with its header after the URL', () => {
    const http = parseMcpAdd(
      'claude mcp add --transport http mailbox-sandbox http://127.0.0.1:8931/mcp --header "X-API-Key: amk_…"',
    );
    expect(http).toMatchObject({
      name: 'mailbox-sandbox',
      command: 'http://127.0.0.1:8931/mcp',
      headers: ['X-API-Key: amk_…'],
      transport: 'http',
    });
  });

  for (const file of files) {
    it(`${file}: a stdio line adds agent-mailbox running agent-mailbox mcp, an HTTP line a name and a URL; every -e a KEY=value`, () => {
      const lines = mcpAddLines(readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8'));
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        const added = parseMcpAdd(line);
        if (added.transport === 'stdio') {
          // A sandbox's server is added beside the real one under a name of its own, never shadowing it.
          const sandbox = added.args.includes('--sandbox');
          expect(added.name, line).toBe(sandbox ? 'agent-mailbox-sandbox' : 'agent-mailbox');
          expect([added.command, ...added.args].join(' '), line).toMatch(
            sandbox
              ? /(^node \S+\/bin\/agent-mailbox\.js|^agent-mailbox|^npx -y agent-mailbox) mcp --sandbox \S+$/
              : /(^node \S+\/bin\/agent-mailbox\.js|^cmd \/c npx -y agent-mailbox|^npx -y agent-mailbox) mcp$/,
          );
        } else {
          expect(added.name, line).toMatch(/^[A-Za-z0-9_-]+$/);
          expect(added.command, line).toMatch(/^https?:\/\/\S+$/);
          expect(added.args, line).toEqual([]);
          for (const header of added.headers) expect(header, line).toMatch(/^[A-Za-z0-9-]+: \S/);
        }
        for (const pair of added.env) expect(pair, line).toMatch(/^AGENT_MAILBOX_[A-Z_]+=\S+$/);
        expect(['local', 'user', 'project']).toContain(added.scope);
      }
    });
  }
});
