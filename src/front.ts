import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PrerenderedPage } from './bundle-assets.js';
import { answerFromPage, mayAskForPage, readPage } from './prerendered-page.js';

/**
 * The package's entry (bin/agent-mailbox.js requires the CommonJS build of this file). It answers
 * help pages from dist/help-pages.jsonl without starting node's ES module loader, which alone costs a
 * `help` about 7 ms on top of `node -e 0` (docs/benchmarks.md, cold start); every other command goes on to the
 * ES module bundle, dist/bin.js (bin/agent-mailbox.js has checked that both files exist). A missing or
 * unreadable pages file only means no shortcut.
 */

function readPages(key: string): Record<string, PrerenderedPage> | undefined {
  try {
    const page = readPage(readFileSync(join(__dirname, 'help-pages.jsonl')), key);
    return page ? { [key]: page } : undefined;
  } catch {
    return undefined;
  }
}

const argv = process.argv.slice(2);
const exitCode = mayAskForPage(argv)
  ? answerFromPage(readPages(argv.join('\0')), {
      argv,
      env: process.env,
      stdout: process.stdout,
      stderr: process.stderr,
    })
  : undefined;
if (exitCode !== undefined) process.exitCode = exitCode;
else void import(pathToFileURL(join(__dirname, 'bin.js')).href);
