/** node:crypto's pbkdf2Sync, as far as the lanes use it. */
export type Pbkdf2Sync = (
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  keylen: number,
  digest: 'sha256',
) => Uint8Array;

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

export interface ScryptLanes {
  /** Blocks the kernel mixes per pass (one per vector lane). */
  readonly lanes: number;
  /** scrypt (RFC 7914 §6) of each password with one salt. */
  hash(passwords: readonly Uint8Array[], salt: Uint8Array, dkLen: number): Uint8Array[];
}

/**
 * scrypt with its ROMix in the SIMD kernel (romix-simd.wat), four blocks a pass (a password's p blocks fill lanes as
 * others' do), PBKDF2 by node:crypto. Reads nothing but its parameters: the worker embeds its source text.
 */
export function createScryptLanes(kernel: WebAssembly.Module, cost: ScryptCost, pbkdf2Sync: Pbkdf2Sync): ScryptLanes {
  const lanes = 4;
  const { N, r, p } = cost;
  const isPowerOfTwo = Number.isInteger(N) && N >= 2 && (N & (N - 1)) === 0;
  if (!isPowerOfTwo || !Number.isInteger(r) || r < 1 || !Number.isInteger(p) || p < 1)
    throw new RangeError(`scrypt needs N a power of two ≥ 2 and whole r, p ≥ 1 (got N=${N}, r=${r}, p=${p})`);
  const block = 128 * r;
  // Layout of romix-simd.wat: four blocks in and out, two interleaved blocks, four V arrays.
  const io = 0;
  const x = lanes * block;
  const y = 2 * lanes * block;
  const v = 3 * lanes * block;
  const memoryBytes = v + lanes * N * block;
  // The kernel's offsets are 32-bit; V8 caps a memory at 65,536 pages of 64 KiB.
  if (memoryBytes > 2 ** 32 - 65536)
    throw new RangeError(`scrypt N=${N}, r=${r} needs ${lanes} × 128·N·r bytes, over WebAssembly's 4 GiB`);
  const pages = Math.ceil(memoryBytes / 65536);
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
  const romix = new WebAssembly.Instance(kernel, { env: { memory } }).exports['romix'] as (
    ...offsets: number[]
  ) => void;
  const heap = new Uint8Array(memory.buffer);

  return {
    lanes,
    hash(passwords, salt, dkLen) {
      const expanded = passwords.map((password) => pbkdf2Sync(password, salt, 1, p * block, 'sha256'));
      const blocks = expanded.flatMap((b) =>
        Array.from({ length: p }, (_, i) => b.subarray(i * block, (i + 1) * block)),
      );
      for (let first = 0; first < blocks.length; first += lanes) {
        // A last pass with fewer blocks than lanes mixes what the spare lanes held before, unread.
        const pass = blocks.slice(first, first + lanes);
        pass.forEach((b, lane) => heap.set(b, io + lane * block));
        romix(io, x, y, v, N, r);
        pass.forEach((b, lane) => b.set(heap.subarray(io + lane * block, io + (lane + 1) * block)));
      }
      return passwords.map((password, i) => pbkdf2Sync(password, expanded[i]!, 1, dkLen, 'sha256'));
    },
  };
}
