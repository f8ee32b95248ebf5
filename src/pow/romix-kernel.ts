import { romixSimdWasmBase64 } from './romix-simd-wasm.js';

/**
 * The smallest module using SIMD128: one function returning `v128.const 0`. Node ≥ 16.4 validates
 * it, unless its V8 runs without SIMD (no SSE4.1 on x64) or without WebAssembly at all (--jitless).
 */
const simdProbe = Buffer.from(
  '0061736d01000000' + // magic, version 1
    '0105016000017b' + // type section: () -> v128
    '03020100' + // function section: one function of type 0
    `0a16011400fd0c${'00'.repeat(16)}0b`, // code: v128.const 0
  'hex',
);

let compiled: WebAssembly.Module | null | undefined;

/** True when this runtime runs WebAssembly SIMD128. */
export function wasmSimdAvailable(): boolean {
  return typeof WebAssembly === 'object' && WebAssembly.validate(simdProbe);
}

/**
 * The ROMix kernel (romix-simd.wat), compiled once per process on first use; undefined where
 * WebAssembly SIMD is not available. Worker threads receive the compiled module and share its code.
 */
export function romixKernel(): WebAssembly.Module | undefined {
  if (compiled === undefined)
    compiled = wasmSimdAvailable() ? new WebAssembly.Module(Buffer.from(romixSimdWasmBase64, 'base64')) : null;
  return compiled ?? undefined;
}
