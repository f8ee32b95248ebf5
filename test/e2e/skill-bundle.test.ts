import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { builtCli } from '../helpers/run-cli.js';

/**
 * The committed single-file script must be what the sources build today, and the help pages the
 * bundles and the package entry (bin/agent-mailbox.js → dist/front.cjs) answer from, rendered at
 * build time, must be what the full program prints.
 */

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

type Answer = { stdout: string; stderr: string; code: number };

const invocations = [
  ['help'],
  ['help', 'presets'],
  ['help', 'tools'],
  ['--help'],
  ['jmap_request', '--help'],
  ['watch', 'status', '--help'],
  [],
];

/**
 * Runs the tsc build's CLI (commander, zod, the whole table) for every invocation in one plain child
 * process, each with its output captured apart, as scripts/build.mjs renders the pages.
 */
async function fullProgram(argvs: string[][]): Promise<Answer[]> {
  const script = `
    const { runCli } = await import(${JSON.stringify(`${root}dist/cli/main.js`)});
    const answers = [];
    for (const argv of ${JSON.stringify(argvs)}) {
      let stdout = '';
      let stderr = '';
      const streams = { stdout: { write: (t) => (stdout += t) }, stderr: { write: (t) => (stderr += t) } };
      const code = await runCli({ env: {}, argv, streams });
      answers.push({ stdout, stderr, code });
    }
    process.stdout.write(JSON.stringify(answers));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH },
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Answer[];
}
const expectedAnswers = fullProgram(invocations);

async function bundled(file: string, argv: string[]): Promise<Answer> {
  try {
    // HOME: the package entry keeps its code cache under it (the run's own, user-home-guard.ts).
    const { stdout, stderr } = await run(process.execPath, [file, ...argv], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

describe('bundled builds', () => {
  it('skill/scripts/agent-mailbox.mjs is up to date with the sources (npm run build:skill rewrites it)', async () => {
    const check = await run(process.execPath, [`${root}scripts/build.mjs`, '--check'], { cwd: root }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
  }, 120_000);

  it('is one file of at most 2.3 MB that holds no sandbox code and inflates nothing at run time', async () => {
    const { readFile } = await import('node:fs/promises');
    const script = await readFile(`${root}skill/scripts/agent-mailbox.mjs`, 'utf8');
    expect(Buffer.byteLength(script)).toBeLessThanOrEqual(2_300_000);
    // Words only the sandbox's code says: its start line, the drill's report, the JMAP host's checks.
    for (const word of [
      'Agent Mailbox sandbox is running (loopback only).',
      'Attacks that reached their goal:',
      'Content-Type must be application/json (RFC 8620 §3.1).',
      'Basic realm="agent-mailbox"',
    ])
      expect(script.includes(word), word).toBe(false);
    for (const inflate of ['inflateSync', 'gunzipSync', 'brotliDecompress', 'DecompressionStream'])
      expect(script.includes(inflate), inflate).toBe(false);
  });

  for (const [i, argv] of invocations.entries()) {
    it(`answers \`${argv.join(' ') || '(no arguments)'}\` from its pre-rendered page exactly as the full program does`, async () => {
      const expected = (await expectedAnswers)[i];
      expect(expected?.stdout || expected?.stderr, 'the full program printed something').toBeTruthy();
      expect(await bundled(builtCli, argv)).toEqual(expected);
      expect(await bundled(`${root}bin/agent-mailbox.js`, argv)).toEqual(expected);
      expect(await bundled(`${root}skill/scripts/agent-mailbox.mjs`, argv)).toEqual(expected);
    });
  }

  it('ends quietly when the reader of a help page has gone (`| head`), with the page exit code', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [`${root}bin/agent-mailbox.js`, 'help', 'security'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before node has started: the page's first write meets a pipe with no reader.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('passes every other command from the package entry to the program, exit code and output unchanged', async () => {
    const argv = ['register', '--username', 'abc', '--watch', 'on-demand'];
    const direct = await bundled(builtCli, argv);
    expect(direct.code).toBe(2);
    expect(await bundled(`${root}bin/agent-mailbox.js`, argv)).toEqual(direct);
  });
});
