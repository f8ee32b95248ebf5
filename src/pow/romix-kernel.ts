import { romixSimdWasmBase64 } from './romix-simd-wasm.js';

/** The smallest SIMD128 module; V8 without SIMD (no SSE4.1 on x64) or WebAssembly (--jitless) refuses it. */
const simdProbe = Buffer.from(
  '0061736d01000000' + // magic, version 1
    '0105016000017b' + // type section: () -> v128
    '03020100' + // function section: one function of type 0
    `0a16011400fd0c${'00'.repeat(16)}0b`, // code: v128.const 0
  'hex',
);

let compiled: WebAssembly.Module | null | undefined;

export function wasmSimdAvailable(): boolean {
  return typeof WebAssembly === 'object' && WebAssembly.validate(simdProbe);
}

/** The ROMix kernel, compiled once on first use (workers share its code); undefined without WebAssembly SIMD. */
export function romixKernel(): WebAssembly.Module | undefined {
  if (compiled === undefined)
    compiled = wasmSimdAvailable() ? new WebAssembly.Module(Buffer.from(romixSimdWasmBase64, 'base64')) : null;
  return compiled ?? undefined;
}
