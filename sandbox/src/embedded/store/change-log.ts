import { MethodError } from '../protocol/method-error.js';

/** One recorded change of a record (RFC 8620 §5.2). */
export interface ChangeEntry {
  state: number;
  id: string;
  kind: 'created' | 'updated' | 'destroyed';
  isCountsOnly?: true;
  threadId?: string;
}

/** What a change may carry besides id and kind. */
export type ChangeDetail = Pick<ChangeEntry, 'isCountsOnly' | 'threadId'>;

/** What `/changes` answers. */
export interface ChangesResult {
  oldState: string;
  newState: string;
  hasMoreChanges: boolean;
  created: string[];
  updated: string[];
  destroyed: string[];
  /** True when every entry behind `updated` moved counts only (Mailbox/changes' updatedProperties). */
  isCountsOnly: boolean;
}

/** Serialized form kept in the account index. */
export interface ChangeLogSnapshot {
  state: number;
  entries: ChangeEntry[];
}

/** Each id changed since a state, with whether it was created after it (so it cannot have been in older results). */
export interface ChangedSince {
  /** isCountsOnly: only a Mailbox's counts moved, which no query filters or sorts on. */
  ids: Map<string, { isNew: boolean; isGone: boolean; isCountsOnly: boolean }>;
  /** Threads of the changed Emails, destroyed ones included. */
  threadIds: Set<string>;
  /** True when a destroyed record's thread is unknown (its entry predates thread hints). */
  hasUntracedDestroy: boolean;
}

/**
 * State of one JMAP type in one account: a counter bumped by every change, plus the full history,
 * so `/changes` and `/queryChanges` can answer from any state this account ever reported. A
 * sandbox holds little mail, so the history is never trimmed.
 */
export class ChangeLog {
  private stateNumber: number;
  private readonly entries: ChangeEntry[];

  constructor(snapshot?: ChangeLogSnapshot) {
    this.stateNumber = snapshot?.state ?? 0;
    this.entries = snapshot ? [...snapshot.entries] : [];
  }

  /** The current state string. */
  get state(): string {
    return String(this.stateNumber);
  }

  /** Records one change and moves the state on. */
  record(id: string, kind: ChangeEntry['kind'], detail: ChangeDetail = {}): void {
    this.stateNumber += 1;
    this.entries.push({ state: this.stateNumber, id, kind, ...detail });
  }

  /** The state number a client's state string names; cannotCalculateChanges for anything this log never reported. */
  parseState(state: string, argument = 'sinceState'): number {
    const since = /^\d{1,15}$/.test(state) ? Number(state) : Number.NaN;
    if (!Number.isSafeInteger(since) || since > this.stateNumber) {
      throw new MethodError(
        'cannotCalculateChanges',
        `${argument} "${state.slice(0, 40)}" is unknown to this account; fetch again from scratch.`,
      );
    }
    return since;
  }

  /** Answers `/changes` (RFC 8620 §5.2); unknown states give cannotCalculateChanges. */
  changesSince(sinceState: string, maxChanges: number | undefined): ChangesResult {
    const since = this.parseState(sinceState);
    const pending = this.entries.filter((entry) => entry.state > since);
    const taken: ChangeEntry[] = [];
    const ids = new Set<string>();
    let newState = this.stateNumber;
    let hasMoreChanges = false;
    for (const entry of pending) {
      if (maxChanges !== undefined && !ids.has(entry.id) && ids.size >= maxChanges) {
        // Stop at a state boundary so the next call resumes exactly here.
        newState = entry.state - 1;
        hasMoreChanges = true;
        break;
      }
      ids.add(entry.id);
      taken.push(entry);
    }
    return { oldState: String(since), newState: String(newState), hasMoreChanges, ...mergeChanges(taken) };
  }

  /** Every id touched after `since` (a number from parseState), for `/queryChanges` (RFC 8620 §5.6). */
  changedSince(since: number): ChangedSince {
    const ids: ChangedSince['ids'] = new Map();
    const threadIds = new Set<string>();
    let hasUntracedDestroy = false;
    for (const entry of this.entries) {
      if (entry.state <= since) continue;
      const seen = ids.get(entry.id);
      ids.set(entry.id, {
        isNew: seen ? seen.isNew : entry.kind === 'created',
        isGone: entry.kind === 'destroyed',
        isCountsOnly: (seen ? seen.isCountsOnly : true) && entry.kind === 'updated' && entry.isCountsOnly === true,
      });
      if (entry.threadId) threadIds.add(entry.threadId);
      else if (entry.kind === 'destroyed') hasUntracedDestroy = true;
    }
    return { ids, threadIds, hasUntracedDestroy };
  }

  /** The serializable snapshot. */
  snapshot(): ChangeLogSnapshot {
    return { state: this.stateNumber, entries: [...this.entries] };
  }
}

// RFC 8620 §5.2: an id created and destroyed in the window is left out; created-then-updated is only "created".
function mergeChanges(
  entries: ChangeEntry[],
): Pick<ChangesResult, 'created' | 'updated' | 'destroyed' | 'isCountsOnly'> {
  const first = new Map<string, ChangeEntry['kind']>();
  const last = new Map<string, ChangeEntry['kind']>();
  const hasRealUpdate = new Set<string>();
  for (const entry of entries) {
    if (!first.has(entry.id)) first.set(entry.id, entry.kind);
    last.set(entry.id, entry.kind);
    if (entry.kind === 'updated' && !entry.isCountsOnly) hasRealUpdate.add(entry.id);
  }
  const created: string[] = [];
  const updated: string[] = [];
  const destroyed: string[] = [];
  for (const [id, firstKind] of first) {
    const lastKind = last.get(id);
    if (firstKind === 'created') {
      if (lastKind !== 'destroyed') created.push(id);
    } else if (lastKind === 'destroyed') {
      destroyed.push(id);
    } else {
      updated.push(id);
    }
  }
  return {
    created,
    updated,
    destroyed,
    isCountsOnly: updated.length > 0 && updated.every((id) => !hasRealUpdate.has(id)),
  };
}
