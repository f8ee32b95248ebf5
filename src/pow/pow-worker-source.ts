import { scryptParams } from '../wire-constants.js';
import { scryptMaxmem } from './pow-digest.js';

/**
 * Source of the search worker, run with `new Worker(source, { eval: true })`.
 *
 * Why a string and not `new URL('./pow-worker.js', import.meta.url)`: vitest runs the .ts sources,
 * where no compiled worker file exists, and Node 20 workers cannot load .ts. With the source
 * inline, tests exercise exactly the code that ships in dist/, with no build step in between.
 * The body is plain CommonJS: eval workers are scripts unless they inherit `--input-type=module`,
 * which solvePow prevents with `execArgv: []`. The vector tests cover it.
 *
 * Shared cells (Int32Array over a SharedArrayBuffer): 0 = next nonce to hand out, 1 = smallest
 * solving nonce so far, 2 = hashes tried, 3 = stop flag. Nonces come from one atomic counter, so
 * every nonce below the final best has been checked by some worker: the smallest nonce wins,
 * deterministically (reference/README.md).
 */
export const powWorkerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
const { challenge, difficulty, salt, shared } = workerData;
const cells = new Int32Array(shared);
const saltBytes = Buffer.from(salt, 'utf8');
const options = { N: ${scryptParams.N}, r: ${scryptParams.r}, p: ${scryptParams.p}, maxmem: ${scryptMaxmem} };
function zeroBits(digest) {
  let bits = 0;
  for (const byte of digest) {
    if (byte !== 0) return bits + Math.clz32(byte) - 24;
    bits += 8;
  }
  return bits;
}
for (;;) {
  if (Atomics.load(cells, 3) !== 0) break;
  const nonce = Atomics.add(cells, 0, 1);
  if (nonce > Atomics.load(cells, 1) || nonce >= 0x7fffffff) break;
  const digest = scryptSync(Buffer.from(challenge + ':' + nonce, 'utf8'), saltBytes, ${scryptParams.dkLen}, options);
  Atomics.add(cells, 2, 1);
  if (zeroBits(digest) >= difficulty) {
    let best = Atomics.load(cells, 1);
    while (nonce < best) {
      const seen = Atomics.compareExchange(cells, 1, best, nonce);
      if (seen === best) break;
      best = seen;
    }
    parentPort.postMessage({ nonce, powHex: digest.toString('hex') });
  }
}
parentPort.postMessage({ done: true });
`;
