import { z } from 'zod';
import type { ChangedSince, ChangeLog } from '../store/change-log.js';
import { MethodError } from '../protocol/method-error.js';

/** The arguments every /queryChanges shares besides filter and sort (RFC 8620 §5.6). */
export const queryChangesArgs = {
  accountId: z.string().optional(),
  sinceQueryState: z.string(),
  maxChanges: z.number().int().nonnegative().nullable().optional(),
  upToId: z.string().nullable().optional(),
  calculateTotal: z.boolean().optional(),
};

/** What the generic part of /queryChanges needs from one query. */
export interface QueryChangesSpec {
  log: ChangeLog;
  sinceQueryState: string;
  /** The query's full results now, in order. */
  currentIds: string[];
  /**
   * True when filter and sort read only properties that never change after creation: then an
   * update cannot move a record in or out of the results, and upToId applies (RFC 8620 §5.6).
   */
  isImmutable: boolean;
  /** Records whose place in the results may have moved without a change of their own (same thread, subtree). */
  alsoAffected?(changed: ChangedSince): Iterable<string>;
  maxChanges?: number | null | undefined;
  upToId?: string | null | undefined;
  calculateTotal?: boolean | undefined;
}

/**
 * Answers /queryChanges from the type's change log (RFC 8620 §5.6). `removed` lists every changed
 * record that existed at the old state (the RFC allows ids that were not in the old results, but
 * not missing ones), `added` every changed record in the results now with its index; a client
 * that splices both into its cached list gets the new list. Records created after the old state
 * cannot have been in the old results, so they only appear in `added`.
 */
export function computeQueryChanges(spec: QueryChangesSpec): Record<string, unknown> {
  const since = spec.log.parseState(spec.sinceQueryState, 'sinceQueryState');
  const changed = spec.log.changedSince(since);
  const candidates = new Map<string, boolean>();
  for (const [id, change] of changed.ids) {
    if (change.isCountsOnly || (spec.isImmutable && !change.isNew && !change.isGone)) continue;
    candidates.set(id, change.isNew);
  }
  for (const id of spec.alsoAffected?.(changed) ?? []) if (!candidates.has(id)) candidates.set(id, false);
  const removed = [...candidates].filter(([, isNew]) => !isNew).map(([id]) => id);
  let added = spec.currentIds.flatMap((id, index) => (candidates.has(id) ? [{ id, index }] : []));
  const upTo = spec.isImmutable && spec.upToId != null ? spec.currentIds.indexOf(spec.upToId) : -1;
  if (upTo >= 0) added = added.filter((item) => item.index <= upTo);
  if (spec.maxChanges != null && removed.length + added.length > spec.maxChanges) {
    throw new MethodError(
      'tooManyChanges',
      `${removed.length + added.length} changes exceed maxChanges (${spec.maxChanges}); run the query again instead.`,
    );
  }
  return {
    oldQueryState: String(since),
    newQueryState: spec.log.state,
    removed,
    added,
    ...(spec.calculateTotal ? { total: spec.currentIds.length } : {}),
  };
}
