import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellCommandFor } from '../../../src/render/shell-command.js';

// Installations laid out as npm, a checkout and a copied skill leave them on disk.
let base: string;
let installed: string;
let checkout: string;
let skill: string;
let pathDir: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'shell-command-'));
  installed = join(base, 'prefix', 'lib', 'node_modules', 'agent-mailbox');
  checkout = join(base, 'my checkout');
  skill = join(base, 'skills', 'agent-mailbox');
  pathDir = join(base, 'prefix', 'bin');
  for (const root of [installed, checkout]) {
    await mkdir(join(root, 'bin'), { recursive: true });
    await mkdir(join(root, 'dist'), { recursive: true });
    await writeFile(join(root, 'bin', 'agent-mailbox.js'), '');
    await writeFile(join(root, 'dist', 'bin.js'), '');
  }
  await mkdir(join(skill, 'scripts'), { recursive: true });
  await writeFile(join(skill, 'scripts', 'agent-mailbox.mjs'), '');
  await mkdir(pathDir, { recursive: true });
  // What `npm install -g` does: a link on PATH to the package's bin file.
  await symlink(join(installed, 'bin', 'agent-mailbox.js'), join(pathDir, 'agent-mailbox'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('the command line that runs this CLI again', () => {
  it('is the bare name when an npm install put this very package on PATH', () => {
    expect(shellCommandFor({ cliPath: join(installed, 'dist', 'bin.js'), env: { PATH: `/usr/bin:${pathDir}` } })).toBe(
      'agent-mailbox',
    );
  });

  it('names the entry when the agent-mailbox on PATH is another installation', () => {
    const other = join(base, 'other', 'node_modules', 'agent-mailbox', 'dist', 'bin.js');
    expect(shellCommandFor({ cliPath: other, env: { PATH: pathDir } })).toBe(`node ${other}`);
  });

  it("is npx again when the running entry is a copy npx fetched into npm's cache, through a link or not", async () => {
    // What `npx -y agent-mailbox` leaves: <cache>/_npx/<hash>/node_modules/agent-mailbox, run through node_modules/.bin.
    const cache = join(base, 'npm-cache');
    const fetched = join(cache, '_npx', '3a5c9e1f', 'node_modules', 'agent-mailbox');
    await mkdir(join(fetched, 'dist'), { recursive: true });
    await writeFile(join(fetched, 'dist', 'bin.js'), '');
    const dotBin = join(cache, '_npx', '3a5c9e1f', 'node_modules', '.bin');
    await mkdir(dotBin, { recursive: true });
    await symlink(join(fetched, 'dist', 'bin.js'), join(dotBin, 'agent-mailbox'));
    expect(
      shellCommandFor({ cliPath: join(fetched, 'dist', 'bin.js'), env: { npm_config_cache: cache, PATH: '' } }),
    ).toBe('npx -y agent-mailbox');
    expect(
      shellCommandFor({ cliPath: join(dotBin, 'agent-mailbox'), env: { npm_config_cache: cache, PATH: '' } }),
    ).toBe('npx -y agent-mailbox');
    // npm's default cache, ~/.npm, when npm passed no setting on.
    const home = join(base, 'home');
    const fromDefault = join(home, '.npm', '_npx', '77aa', 'node_modules', 'agent-mailbox', 'dist', 'bin.js');
    await mkdir(join(fromDefault, '..'), { recursive: true });
    await writeFile(fromDefault, '');
    expect(shellCommandFor({ cliPath: fromDefault, env: { HOME: home, PATH: '' } })).toBe('npx -y agent-mailbox');
  });

  it('is not npx because an inherited npm_lifecycle_event says so: that line would run whatever holds the name on npm', () => {
    // A host started with npx starts this installed copy; the variable comes along in its environment.
    const env = {
      npm_lifecycle_event: 'npx',
      npm_config_cache: join(base, 'npm-cache'),
      HOME: join(base, 'home'),
      PATH: `/usr/bin:${pathDir}`,
    };
    expect(shellCommandFor({ cliPath: join(installed, 'dist', 'bin.js'), env })).toBe('agent-mailbox');
    expect(shellCommandFor({ cliPath: join(checkout, 'dist', 'bin.js'), env: { ...env, PATH: '' } })).toBe(
      `node '${join(checkout, 'bin', 'agent-mailbox.js')}'`,
    );
  });

  it('is the skill script relative to the skill folder, as SKILL.md writes it, and absolute from elsewhere', () => {
    const cliPath = join(skill, 'scripts', 'agent-mailbox.mjs');
    expect(shellCommandFor({ cliPath, env: { PATH: pathDir }, cwd: skill })).toBe('node scripts/agent-mailbox.mjs');
    expect(shellCommandFor({ cliPath, env: {}, cwd: base + '-elsewhere' })).toBe(`node ${cliPath}`);
    // A host-started MCP server has no meaningful working directory.
    expect(shellCommandFor({ cliPath, env: {} })).toBe(`node ${cliPath}`);
  });

  it('names a checkout by its bin file, quoted for the shell when the path needs it', () => {
    const cliPath = join(checkout, 'dist', 'bin.js');
    expect(shellCommandFor({ cliPath, env: {}, cwd: checkout })).toBe('node bin/agent-mailbox.js');
    expect(shellCommandFor({ cliPath, env: {}, cwd: base })).toBe(`node 'my checkout/bin/agent-mailbox.js'`);
    expect(shellCommandFor({ cliPath, env: {} })).toBe(`node '${join(checkout, 'bin', 'agent-mailbox.js')}'`);
  });
});
