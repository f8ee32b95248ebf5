import { readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PrerenderedPage } from './bundle-assets.js';
import { answerFromPage, mayAskForPage, readPage, type PageTarget } from './prerendered-page.js';

type PageStream = PageTarget['stdout'];

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

/**
 * A standard stream as the page needs it, written with plain synchronous writes: `process.stdout`
 * would load node's stream modules first, several milliseconds of a help page's start. Its isTTY
 * is asked only for a width-dependent page.
 */
function pageStream(fd: 1 | 2, stream: () => NodeJS.WriteStream): PageStream {
  return {
    get isTTY() {
      return stream().isTTY;
    },
    write(text: string) {
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length;) {
        try {
          at += writeSync(fd, bytes, at);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          // The reader has gone (`| head`): nobody is left to read the rest, nor a stack trace.
          if (code === 'EPIPE') return;
          // A non-blocking pipe that is full: wait for the reader, as a blocking write would.
          if (code !== 'EAGAIN') throw error;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        }
      }
    },
  };
}

const argv = process.argv.slice(2);
const exitCode = mayAskForPage(argv)
  ? answerFromPage(readPages(argv.join('\0')), {
      argv,
      env: process.env,
      stdout: pageStream(1, () => process.stdout),
      stderr: pageStream(2, () => process.stderr),
    })
  : undefined;
if (exitCode !== undefined) process.exitCode = exitCode;
else void import(pathToFileURL(join(__dirname, 'bin.js')).href);
