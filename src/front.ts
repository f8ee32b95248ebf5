import { readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PrerenderedPage } from './bundle-assets.js';
import { answerFromPage, mayAskForPage, readPage, type PageTarget } from './prerendered-page.js';

type PageStream = PageTarget['stdout'];

/**
 * The package's entry (bin/agent-mailbox.js requires its CommonJS build). It answers help pages from
 * dist/help-pages.jsonl without node's ES module loader (~7 ms of a `help`, docs/benchmarks.md); every
 * other command goes on to dist/bin.js. A missing or unreadable pages file only means no shortcut.
 */

function readPages(key: string): Record<string, PrerenderedPage> | undefined {
  try {
    const page = readPage(readFileSync(join(__dirname, 'help-pages.jsonl')), key);
    return page ? { [key]: page } : undefined;
  } catch {
    return undefined;
  }
}

/** A standard stream written synchronously: `process.stdout` would load node's stream modules (milliseconds). */
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
