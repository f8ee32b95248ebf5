import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cleanUpAfter } from '../../../sandbox/test/helpers/clean-up-after.js';
import { romixKernel, wasmSimdAvailable } from '../../../src/pow/romix-kernel.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const source = join(root, 'src/pow/romix-simd.wat');

/** Exit code and stderr of scripts/build-kernel.mjs --check with `args`. */
async function check(...args: string[]): Promise<{ code: number; stderr: string }> {
  return run(process.execPath, [join(root, 'scripts/build-kernel.mjs'), '--check', ...args], { cwd: root }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

describe('the ROMix kernel build', () => {
  it('embeds exactly what romix-simd.wat assembles to (npm run build:kernel rewrites it)', async () => {
    expect(await check()).toEqual({ code: 0, stderr: '' });
  }, 60_000);

  it('fails the check when the source no longer matches the embedded module', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'romix-kernel-'));
    cleanUpAfter(() => rm(dir, { recursive: true, force: true }));
    const wat = await readFile(source, 'utf8');
    // A planted bug: the first rotation of each double round by 8 instead of 7.
    const planted = wat.replace(
      '(i32.const  7)) (i32x4.shr_u (local.get $t) (i32.const 25))',
      '(i32.const  8)) (i32x4.shr_u (local.get $t) (i32.const 24))',
    );
    expect(planted).not.toBe(wat);
    await writeFile(join(dir, 'romix-simd.wat'), planted);
    const result = await check('--source', join(dir, 'romix-simd.wat'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /romix-simd-wasm\.ts is out of date with .*romix-simd\.wat: run `npm run build:kernel`/,
    );
  }, 60_000);

  it('is compiled once and offered where WebAssembly SIMD runs, as on this Node', () => {
    expect(wasmSimdAvailable()).toBe(true);
    expect(romixKernel()).toBeDefined();
    expect(romixKernel()).toBe(romixKernel());
  });
});
