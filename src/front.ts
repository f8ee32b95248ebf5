import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PrerenderedPage } from './bundle-assets.js';
import { answerFromPage } from './prerendered-page.js';

/**
 * The package's entry (bin/agent-mailbox.js requires the CommonJS build of this file). It answers
 * help pages from dist/pages.json without starting node's ES module loader, which alone costs a
 * `help` about 7 ms on top of `node -e 0` (docs/benchmarks.md, cold start); every other command goes on to the
 * ES module bundle, dist/bin.js (bin/agent-mailbox.js has checked that both files exist). A missing or
 * unreadable pages file only means no shortcut.
 */

function readPages(): Record<string, PrerenderedPage> | undefined {
  try {
    return JSON.parse(readFileSync(join(__dirname, 'pages.json'), 'utf8')) as Record<string, PrerenderedPage>;
  } catch {
    return undefined;
  }
}

const argv = process.argv.slice(2);
// Only an argv that can be a help or version request pays for reading the pages.
const mayBeHelp =
  argv.length === 0 ||
  argv[0] === 'help' ||
  argv.includes('--help') ||
  argv.includes('-h') ||
  argv[0] === '--version' ||
  argv[0] === '-V';
const exitCode = mayBeHelp
  ? answerFromPage(readPages(), { argv, env: process.env, stdout: process.stdout, stderr: process.stderr })
  : undefined;
if (exitCode !== undefined) process.exitCode = exitCode;
else void import(pathToFileURL(join(__dirname, 'bin.js')).href);
