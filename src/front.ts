import { readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';
import type { PrerenderedPage } from './bundle-assets.js';
import { createRequire } from 'node:module';
import { holdHeap, servesMcp } from './start/hold-heap.js';
import { loadBundle } from './start/load-bundle.js';
import { answerFromPage, mayAskForPage, readPage, type PageTarget } from './start/prerendered-page.js';
import { isSwitchOn } from './switch-text.js';

type PageStream = PageTarget['stdout'];

/**
 * The package's entry (bin/agent-mailbox.js and dist/bin.js require its CommonJS build). It answers help
 * pages from dist/help-pages.jsonl without loading the program (~7 ms of a `help`, docs/benchmarks.md);
 * every other command goes on to the bundle's entry chunk, loaded with the code cache. A missing or
 * unreadable pages file only means no shortcut.
 */

/** The entry chunk's file name in dist/chunks/ (it carries a hash of its content): set by scripts/build.mjs. */
declare const AGENT_MAILBOX_ENTRY_CHUNK: string;

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
else {
  // Read before the program and its settings table load, as the table reads a switch.
  const cacheDir = isSwitchOn(process.env.AGENT_MAILBOX_NO_CODE_CACHE ?? '')
    ? undefined
    : join(envPaths('agent-mailbox', { suffix: '' }).cache, 'code');
  const nodeRequire = createRequire(__filename);
  const heapFlags = servesMcp(argv) ? holdHeap(nodeRequire('node:v8'), nodeRequire('node:perf_hooks')) : [];
  const bundle = loadBundle(join(__dirname, 'chunks', AGENT_MAILBOX_ENTRY_CHUNK), cacheDir, heapFlags) as {
    startMailbox: typeof import('./start/start-mailbox.js').startMailbox;
  };
  // dist/bin.js: the entry watch jobs and hosts already name, which hands over to this file.
  void bundle.startMailbox(argv, join(__dirname, 'bin.js'));
}
