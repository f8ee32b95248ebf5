import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PrerenderedPage } from './bundle-assets.js';
import { answerFromPage, mayAskForPage } from './prerendered-page.js';

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
const exitCode = mayAskForPage(argv)
  ? answerFromPage(readPages(), { argv, env: process.env, stdout: process.stdout, stderr: process.stderr })
  : undefined;
if (exitCode !== undefined) process.exitCode = exitCode;
else void import(pathToFileURL(join(__dirname, 'bin.js')).href);
