import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { builtCli, noCrontab } from '../helpers/run-cli.js';
import { terminalSkipReason } from '../helpers/run-in-terminal.js';
import { sandboxEnv } from '../helpers/connect-mcp.js';
import { createFakeBackend, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';

// An operator's terminal of any width sees the proof of work go on: hashes and rate at least every
// 2 s. A difficulty no machine here solves in the test's time keeps the work running throughout.
const skip = terminalSkipReason();
const sandbox = skip
  ? undefined
  : await startTestSandbox({ difficulty: 22, createBackend: createFakeBackend().factory });
const watchMs = 6_500;

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** Runs register in a pty of `columns` columns for a while; what the terminal showed, with arrival times. */
async function registerInTerminal(columns: number): Promise<{ at: number; text: string }[]> {
  const dir = await tempCredentialsDir();
  const line = `stty cols ${columns} rows 24; exec ${[process.execPath, builtCli, 'register', '--username', 'slow-agent', '--watch', 'on-demand'].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', line, '/dev/null'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      AGENT_MAILBOX_CRONTAB: noCrontab,
      AGENT_MAILBOX_POW_WORKERS: '1',
      ...sandboxEnv(sandbox!, dir),
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const chunks: { at: number; text: string }[] = [];
  child.stdout.setEncoding('utf8').on('data', (text: string) => chunks.push({ at: Date.now(), text }));
  const closed = new Promise((resolve) => child.on('close', resolve));
  await new Promise((resolve) => setTimeout(resolve, watchMs));
  child.kill('SIGTERM');
  await closed;
  return chunks;
}

describe.skipIf(skip !== undefined)('register at a terminal', () => {
  for (const columns of [0, 10, 80]) {
    it(`shows the hashes and the rate at least every 2 s on a ${columns}-column terminal`, async () => {
      const chunks = await registerInTerminal(columns);
      const shown = chunks.filter((chunk) => /\d+ hashes tried.*\d+(\.\d+)? hashes\/s/s.test(chunk.text));
      expect(shown.length, JSON.stringify(chunks.map((c) => c.text))).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < shown.length; i++) expect(shown[i]!.at - shown[i - 1]!.at).toBeLessThanOrEqual(2_300);
      // Rewritten in place where the line fits, a line of its own where it cannot.
      if (columns === 80)
        expect(
          shown.every((chunk) => chunk.text.startsWith('\r') && !chunk.text.includes('\n')),
          JSON.stringify(shown.filter((chunk) => !chunk.text.startsWith('\r') || chunk.text.includes('\n'))),
        ).toBe(true);
      else expect(shown.every((chunk) => chunk.text.includes('\n'))).toBe(true);
    });
  }
});
