#!/usr/bin/env node
// Builds dist/agent-mailbox.mcpb, the one-click install for Claude Desktop: the self-contained CLI
// bundle (skill/scripts/agent-mailbox.mjs, Node ≥ 20 and nothing else) plus a manifest, packed by
// Anthropic's maintained `mcpb` packer. The manifest's tool list is read from the bundled server
// itself (tools/list over stdio), so it cannot drift from what the server offers.
// Usage: node scripts/build-mcpb.mjs [--out FILE]
import { spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outFlag = process.argv.indexOf('--out');
const out = resolve(outFlag > 0 ? process.argv[outFlag + 1] : join(root, 'dist', 'agent-mailbox.mcpb'));
const stage = join(dirname(out), 'mcpb-stage');
const bundle = join(root, 'skill', 'scripts', 'agent-mailbox.mjs');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));

/** Asks the bundled server for its tools over stdio, as a host would. */
function listTools(entry) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [entry, 'mcp'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    let buffer = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('the bundled server did not answer tools/list within 20 s'));
    }, 20_000);
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      buffer += chunk;
      for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        if (message.id === 1) {
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
        } else if (message.id === 2) {
          clearTimeout(timer);
          child.kill();
          resolvePromise(message.result.tools);
        }
      }
    });
    child.on('error', reject);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build-mcpb', version: pkg.version } } })}\n`,
    );
  });
}

await rm(stage, { recursive: true, force: true });
await mkdir(join(stage, 'server'), { recursive: true });
await copyFile(bundle, join(stage, 'server', 'agent-mailbox.mjs'));
const tools = await listTools(join(stage, 'server', 'agent-mailbox.mjs'));
// The manifest caps a tool's description at 200 characters: a longer first sentence is cut at the
// last word that fits, never inside one, and says it goes on.
const firstSentence = (text) => {
  const sentence = text.split(/(?<=\.)\s/)[0] ?? text;
  if (sentence.length <= 200) return sentence;
  const cut = sentence.slice(0, 199);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1)).replace(/[\s,;:(–-]+$/, '')}…`;
};

const manifest = {
  manifest_version: '0.3',
  name: pkg.name,
  display_name: 'Agent Mailbox',
  version: pkg.version,
  description:
    'Gives the agent its own e-mail inbox on the Agent Mailbox Service: register, read, search, send and reply over JMAP.',
  long_description:
    "agent-mailbox is a local MCP server: the agent registers an inbox of its own (a proof of work, no account needed), then reads and sends mail through bundled JMAP presets. Mail content is fenced as untrusted; the operator's policy (who the agent may write to, caps, a person's yes) is enforced in the tool.",
  author: { name: 'agent-mailbox contributors' },
  license: pkg.license,
  keywords: ['email', 'jmap', 'inbox', 'agent', 'mail'],
  server: {
    type: 'node',
    entry_point: 'server/agent-mailbox.mjs',
    mcp_config: {
      command: 'node',
      args: ['${__dirname}/server/agent-mailbox.mjs', 'mcp'],
      // Empty when not chosen, which the server reads as unset. The sandbox's data directory carries
      // every setting of a local sandbox: Claude Desktop passes the server no other environment.
      env: {
        AGENT_MAILBOX_DOWNLOAD_DIR: '${user_config.download_dir}',
        AGENT_MAILBOX_CREDENTIALS_DIR: '${user_config.credentials_dir}',
        AGENT_MAILBOX_SANDBOX: '${user_config.sandbox_dir}',
      },
    },
  },
  tools: tools.map((tool) => ({ name: tool.name, description: firstSentence(tool.description ?? '') })),
  user_config: {
    download_dir: {
      type: 'directory',
      title: 'Download folder',
      description: 'Where attachments the agent downloads are saved.',
      required: false,
      default: '${DOWNLOADS}',
    },
    credentials_dir: {
      type: 'directory',
      title: 'Credentials folder',
      description:
        'Folder holding the inbox credentials (one inbox per folder). Leave empty for the default per-user folder.',
      required: false,
    },
    sandbox_dir: {
      type: 'directory',
      title: 'Local sandbox (testing only)',
      description:
        'The --data-dir of a running agent-mailbox sandbox: the server then uses that sandbox and its credentials folder, never the real service. Leave empty for real mail.',
      required: false,
    },
  },
  compatibility: { platforms: ['darwin', 'win32', 'linux'], runtimes: { node: '>=20.0.0' } },
};
await writeFile(join(stage, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

const packer = join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
await rm(out, { force: true });
const code = await new Promise((resolvePromise) => {
  const child = spawn(process.execPath, [packer, 'pack', stage, out], { stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('close', resolvePromise);
});
await rm(stage, { recursive: true, force: true });
if (code !== 0) {
  console.error(`mcpb pack failed (exit ${code})`);
  process.exit(1);
}
console.error(`built ${out}`);
