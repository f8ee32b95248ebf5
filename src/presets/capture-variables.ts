import type { JmapResponse } from '../jmap/jmap-types.js';
import { prepareHtmlToText } from '../present/html-to-text.js';
import type { PresetStep } from './preset-schema.js';
import { applyTransform, resolvePointer } from './preset-transforms.js';
import type { JmapFailure } from '../jmap/summarize-response.js';

/** What a step captured: the new variables, or the failure of a required one that was not found. */
export type Captured =
  | { readonly vars: Readonly<Record<string, unknown>>; readonly failure?: undefined }
  | { readonly vars?: undefined; readonly failure: JmapFailure };

/** A step's declared variables from its response; quote_original may read HTML mail, so the converter loads here. */
export async function captureVariables(
  step: PresetStep,
  response: JmapResponse,
  vars: Readonly<Record<string, unknown>>,
): Promise<Captured> {
  const captures = Object.entries(step.capture ?? {});
  if (captures.some(([, capture]) => capture.transform !== undefined)) await prepareHtmlToText(response);
  const captured: Record<string, unknown> = {};
  for (const [name, capture] of captures) {
    const found = response.methodResponses.find(([method, , callId]) => callId === capture.from && method !== 'error');
    const raw = found ? resolvePointer(found[1], capture.pointer) : undefined;
    const value =
      raw === undefined || raw === null ? raw : applyTransform(capture.transform, raw, { ...vars, ...captured });
    if (value !== undefined && value !== null) captured[name] = value;
    else if (capture.default !== undefined) captured[name] = capture.default;
    else
      return {
        failure: {
          callId: capture.from,
          method: found?.[0] ?? 'unknown method',
          level: 'method',
          type: 'notFound',
          description: `nothing at ${capture.pointer} for $${name}`,
          fix: capture.missingHint ?? 'The record the next step needs does not exist; check the ids you passed.',
        },
      };
  }
  return { vars: captured };
}
