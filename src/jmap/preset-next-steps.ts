import type { NextStep } from '../errors.js';
import type { NextCondition, Preset } from './preset-schema.js';
import { substituteVariables } from './substitute-variables.js';

/** What a run showed, for the preset's conditional next steps. */
export interface NextFacts {
  listed: boolean;
  moreChanges: boolean;
}

/** The preset's next steps that fit this run, with $VARS filled in and the conditions dropped. */
export function applicableNext(items: NonNullable<Preset['next']>, vars: Readonly<Record<string, unknown>>, facts: NextFacts): (string | NextStep)[] {
  const fits = (when: NextCondition | undefined): boolean => when === undefined || (when === 'listed' ? facts.listed : facts.moreChanges);
  const kept = items.flatMap((item): (string | NextStep)[] => {
    if (typeof item === 'string') return [item];
    if (!fits(item.when)) return [];
    return ['text' in item ? item.text : { operation: item.operation, input: item.input }];
  });
  return [...substituteVariables(kept, vars, { keepMissing: true }).value];
}
