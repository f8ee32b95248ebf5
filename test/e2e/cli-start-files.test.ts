import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { recordBundleReads } from '../helpers/bundle-reads.js';
import { builtCli, offlineCliEnv } from '../helpers/run-cli.js';

// A start pays for every file it opens, besides every byte; esbuild cuts chunks by the entries that
// reach each module, and a lazily loaded module that reaches part of what every command loads cuts it
// into more files (handlersFirst in scripts/build.mjs, docs/benchmarks.md). The built CLI runs a
// command under a preload that writes down every file of the bundle it reads.

const run = promisify(execFile);
const distDir = dirname(builtCli);

let root = '';
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = '';
});

describe('the files a CLI command opens', () => {
  it('are at most 12 of the bundle for a listing, which runs the handlers and the check stage', async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-mailbox-files-'));
    const reads = await recordBundleReads(root);
    // Offline: no inbox in the directory, so the command ends at the account, its code all loaded.
    const env = { ...offlineCliEnv(root), ...reads.env };
    const stderr = await run(
      process.execPath,
      [...reads.nodeArgs, builtCli, 'jmap_request', '--ops-file', 'list_inbox'],
      { env },
    ).then(
      () => '',
      (error: { stderr: string }) => error.stderr,
    );
    expect(stderr).toMatch(/register/);
    const files = await reads.files(distDir);
    expect(
      files.some((file) => /[\\/]handlers-[^\\/]+\.js$/.test(file)),
      'the handlers were loaded',
    ).toBe(true);
    expect(files.length, files.join('\n')).toBeLessThanOrEqual(12);
  });
});
