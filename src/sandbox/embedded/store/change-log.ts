import { MethodError } from '../protocol/method-error.js';

/** One recorded change of a record (RFC 8620 §5.2). */
export interface ChangeEntry {
  state: number;
  id: string;
  kind: 'created' | 'updated' | 'destroyed';
}

/** What `/changes` answers. */
export interface ChangesResult {
  oldState: string;
  newState: string;
  hasMoreChanges: boolean;
  created: string[];
  updated: string[];
  destroyed: string[];
}

/** Serialized form kept in the account index. */
export interface ChangeLogSnapshot {
  state: number;
  entries: ChangeEntry[];
}

/**
 * State of one JMAP type in one account: a counter bumped by every change, plus the full history,
 * so `/changes` can answer from any state this account ever reported. A sandbox holds little mail,
 * so the history is never trimmed.
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
  record(id: string, kind: ChangeEntry['kind']): void {
    this.stateNumber += 1;
    this.entries.push({ state: this.stateNumber, id, kind });
  }

  /** Answers `/changes` (RFC 8620 §5.2); unknown states give cannotCalculateChanges. */
  changesSince(sinceState: string, maxChanges: number | undefined): ChangesResult {
    const since = /^\d+$/.test(sinceState) ? Number(sinceState) : Number.NaN;
    if (!Number.isSafeInteger(since) || since > this.stateNumber) {
      throw new MethodError('cannotCalculateChanges', `State "${sinceState}" is unknown to this account; refetch from scratch.`);
    }
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

  /** The serializable snapshot. */
  snapshot(): ChangeLogSnapshot {
    return { state: this.stateNumber, entries: [...this.entries] };
  }
}

// RFC 8620 §5.2: an id created and destroyed in the window is left out; created-then-updated is only "created".
function mergeChanges(entries: ChangeEntry[]): Pick<ChangesResult, 'created' | 'updated' | 'destroyed'> {
  const first = new Map<string, ChangeEntry['kind']>();
  const last = new Map<string, ChangeEntry['kind']>();
  for (const entry of entries) {
    if (!first.has(entry.id)) first.set(entry.id, entry.kind);
    last.set(entry.id, entry.kind);
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
  return { created, updated, destroyed };
}
