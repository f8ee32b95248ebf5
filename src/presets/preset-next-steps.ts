import type { NextStep } from '../errors.js';
import type { NextCondition, Preset } from './preset-schema.js';
import { substituteVariables } from './substitute-variables.js';

/** What a run showed, for the preset's conditional next steps. */
interface NextFacts {
  /** Ids of the messages from others it listed (none: nothing was listed). */
  listed: readonly string[];
  moreChanges: boolean;
}

/** How a preset's next step stands for "an id from this listing" (presets/*.json). */
const listedIdPlaceholder = '<id from the list>';

/** The next steps that fit this run, $VARS filled in; a listing of one message fills in its id, ready to run. */
export function applicableNext(
  items: NonNullable<Preset['next']>,
  vars: Readonly<Record<string, unknown>>,
  facts: NextFacts,
): (string | NextStep)[] {
  const fits = (when: NextCondition | undefined): boolean =>
    when === undefined || (when === 'listed' ? facts.listed.length > 0 : facts.moreChanges);
  const kept = items.flatMap((item): (string | NextStep)[] => {
    if (typeof item === 'string') return [item];
    if (!fits(item.when)) return [];
    return ['text' in item ? item.text : { operation: item.operation, input: item.input }];
  });
  const filled = [...substituteVariables(kept, vars, { keepMissing: true }).value];
  const only = facts.listed.length === 1 ? facts.listed[0] : undefined;
  return only === undefined
    ? filled
    : filled.map((step) =>
        typeof step === 'string' ? step : (replaceValue(step, listedIdPlaceholder, only) as NextStep),
      );
}

function replaceValue(value: unknown, from: string, to: string): unknown {
  if (value === from) return to;
  if (Array.isArray(value)) return value.map((item) => replaceValue(item, from, to));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceValue(v, from, to)]));
  return value;
}
