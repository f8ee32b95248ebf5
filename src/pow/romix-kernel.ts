import { romixSimdWasmBase64 } from './romix-simd-wasm.js';

/**
 * The smallest module using SIMD128: one function returning `v128.const 0`. Node ≥ 16.4 validates
 * it, unless its V8 runs without SIMD (no SSE4.1 on x64) or without WebAssembly at all (--jitless).
 */
const simdProbe = Uint8Array.from([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00, // magic, version 1
  0x01,
  0x05,
  0x01,
  0x60,
  0x00,
  0x01,
  0x7b, // type section: () -> v128
  0x03,
  0x02,
  0x01,
  0x00, // function section: one function of type 0
  0x0a,
  0x16,
  0x01,
  0x14,
  0x00,
  0xfd,
  0x0c,
  ...new Array<number>(16).fill(0),
  0x0b, // code: v128.const 0
]);

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
