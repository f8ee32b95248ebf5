import { scryptParams } from '../wire-constants.js';
import { countLeadingZeroBits, scryptMaxmem } from './pow-digest.js';
import { createScryptLanes } from './scrypt-lanes.js';

/**
 * Source of the search worker, run with `new Worker(source, { eval: true })`: a string because vitest runs the .ts
 * sources and Node 20 workers cannot load .ts, so tests run exactly the code dist/ ships (the lanes come in as
 * createScryptLanes's source text). Plain CommonJS: `execArgv: []` keeps `--input-type=module` from being inherited.
 * workerData.kernel is the ROMix kernel (one nonce per lane a pass), or undefined for node:crypto's scrypt.
 *
 * Shared Int32 cells: 0 = next nonce, 1 = smallest solving nonce so far, 2 = hashes tried, 3 = stop flag. A worker
 * hashes every nonce it takes from the counter, so all below the final best were checked: the smallest wins.
 */
export const powWorkerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { pbkdf2Sync, scryptSync } = require('node:crypto');
const { challenge, difficulty, salt, shared, kernel } = workerData;
const cells = new Int32Array(shared);
const saltBytes = Buffer.from(salt, 'utf8');
const cost = { N: ${scryptParams.N}, r: ${scryptParams.r}, p: ${scryptParams.p} };
const dkLen = ${scryptParams.dkLen};
const createScryptLanes = ${createScryptLanes.toString()};
const lanes = kernel ? createScryptLanes(kernel, cost, pbkdf2Sync) : undefined;
const batch = lanes ? lanes.lanes : 1;
const hashAll = lanes
  ? (passwords) => lanes.hash(passwords, saltBytes, dkLen)
  : (passwords) => [scryptSync(passwords[0], saltBytes, dkLen, { ...cost, maxmem: ${scryptMaxmem} })];
const zeroBits = ${countLeadingZeroBits.toString()};
for (;;) {
  if (Atomics.load(cells, 3) !== 0) break;
  const first = Atomics.add(cells, 0, batch);
  if (first < 0 || first > Atomics.load(cells, 1) || first > 0x7fffffff - batch) break;
  const nonces = Array.from({ length: batch }, (_, i) => first + i);
  const digests = hashAll(nonces.map((nonce) => Buffer.from(challenge + ':' + nonce, 'utf8')));
  Atomics.add(cells, 2, batch);
  nonces.forEach((nonce, i) => {
    if (zeroBits(digests[i]) < difficulty) return;
    let best = Atomics.load(cells, 1);
    while (nonce < best) {
      const seen = Atomics.compareExchange(cells, 1, best, nonce);
      if (seen === best) break;
      best = seen;
    }
    parentPort.postMessage({ nonce, powHex: Buffer.from(digests[i]).toString('hex') });
  });
}
parentPort.postMessage({ done: true });
`;
