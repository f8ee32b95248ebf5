import type { InboxAccount } from '../store/inbox-account.js';
import { trackedTypes, type TrackedType } from '../store/records.js';

/** The states one account reports to push clients, by type name. */
export type TypeStates = Partial<Record<TrackedType, string>>;

/** One open event stream: what it wants and what it was last told. */
interface Subscriber {
  types: ReadonlySet<TrackedType>;
  lastSent: TypeStates;
  send(changed: TypeStates): void;
}

/**
 * Fans state changes out to EventSource clients (RFC 8620 §7.3). The store calls publish() after
 * every job, so a delivery, a send or a flag change reaches listeners as soon as it is stored.
 */
export class PushHub {
  private readonly subscribers = new Map<string, Set<Subscriber>>();

  /** Open streams of one account. */
  count(address: string): number {
    return this.subscribers.get(address)?.size ?? 0;
  }

  /** Registers a stream; the account's states now are its baseline. Returns the unsubscribe function. */
  subscribe(account: InboxAccount, types: ReadonlySet<TrackedType>, send: (changed: TypeStates) => void): () => void {
    const subscriber: Subscriber = { types, lastSent: statesOf(account, types), send };
    let set = this.subscribers.get(account.address);
    if (!set) this.subscribers.set(account.address, (set = new Set()));
    set.add(subscriber);
    return () => {
      set.delete(subscriber);
      if (set.size === 0) this.subscribers.delete(account.address);
    };
  }

  /** Tells every stream whose types changed since it last heard. */
  publish(accountOf: (address: string) => InboxAccount | undefined): void {
    for (const [address, set] of this.subscribers) {
      const account = accountOf(address);
      if (!account) continue;
      for (const subscriber of [...set]) {
        const now = statesOf(account, subscriber.types);
        const changed: TypeStates = {};
        for (const type of subscriber.types)
          if (now[type] !== subscriber.lastSent[type]) changed[type] = now[type] as string;
        if (Object.keys(changed).length === 0) continue;
        subscriber.lastSent = now;
        subscriber.send(changed);
      }
    }
  }
}

function statesOf(account: InboxAccount, types: ReadonlySet<TrackedType>): TypeStates {
  const states: TypeStates = {};
  for (const type of trackedTypes) if (types.has(type)) states[type] = account.changes[type].state;
  return states;
}
