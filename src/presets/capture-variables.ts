import type { JmapResponse } from '../jmap/jmap-types.js';
import type { PresetStep } from './preset-schema.js';
import { applyTransform, resolvePointer } from './preset-transforms.js';
import type { JmapFailure } from '../jmap/summarize-response.js';

/** Captures a step's declared variables; returns a failure when a required one is not found. */
export function captureVariables(
  step: PresetStep,
  response: JmapResponse,
  vars: Record<string, unknown>,
): JmapFailure | undefined {
  for (const [name, capture] of Object.entries(step.capture ?? {})) {
    const found = response.methodResponses.find(([method, , callId]) => callId === capture.from && method !== 'error');
    const raw = found ? resolvePointer(found[1], capture.pointer) : undefined;
    const value = raw === undefined || raw === null ? raw : applyTransform(capture.transform, raw, vars);
    if (value !== undefined && value !== null) vars[name] = value;
    else if (capture.default !== undefined) vars[name] = capture.default;
    else {
      return {
        callId: capture.from,
        method: found?.[0] ?? 'unknown method',
        level: 'method',
        type: 'notFound',
        description: `nothing at ${capture.pointer} for $${name}`,
        fix: capture.missingHint ?? 'The record the next step needs does not exist; check the ids you passed.',
      };
    }
  }
  return undefined;
}
