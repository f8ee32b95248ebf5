import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// The package's front reads each chunk of the bundle with readFileSync and runs it (src/start/load-bundle.ts):
// a preload that writes down each file read, with the time, shows which chunks a process loaded and when.
const preload = `
const fs = require('node:fs');
const read = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  if (typeof file === 'string') fs.appendFileSync(process.env.BUNDLE_READS_LOG, Date.now() + ' ' + file + '\\n');
  return read.call(this, file, ...rest);
};
`;

export interface BundleReads {
  /** node's arguments that load the preload. */
  nodeArgs: string[];
  /** The variable the preload writes to; pass it in the child's environment. */
  env: { BUNDLE_READS_LOG: string };
  /** The .js files under `dir` read by `until` (ms since the epoch), each once, in the order first read. */
  files(dir: string, until?: number): Promise<string[]>;
}

/** Writes the preload and its log into `root`. */
export async function recordBundleReads(root: string): Promise<BundleReads> {
  const log = join(root, 'bundle-reads.log');
  await writeFile(log, '');
  await writeFile(join(root, 'bundle-reads.cjs'), preload);
  return {
    nodeArgs: ['--require', join(root, 'bundle-reads.cjs')],
    env: { BUNDLE_READS_LOG: log },
    files: async (dir, until = Infinity) => [
      ...new Set(
        (await readFile(log, 'utf8'))
          .split('\n')
          .map((line) => [Number(line.slice(0, line.indexOf(' '))), line.slice(line.indexOf(' ') + 1)] as const)
          .filter(([at, file]) => at <= until && file.startsWith(dir) && file.endsWith('.js'))
          .map(([, file]) => file),
      ),
    ],
  };
}
