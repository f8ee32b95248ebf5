import type { InboxIdentity } from '../../auth/account-registry.js';

/**
 * The inbox's name for rules and records (its address when known) and the folder holding them (policy
 * layer, send ledger, audit log, held mail). A proof-of-work directory is its one inbox's folder; a
 * connected account gives each inbox its own (credentials-kind.ts), so rules never leak between them.
 */
export function guardedInbox(identity: Pick<InboxIdentity, 'inboxId' | 'address' | 'jmapAccountId' | 'stateDir'>): {
  inbox: string;
  stateDir: string;
} {
  return { inbox: identity.address ?? identity.jmapAccountId ?? identity.inboxId, stateDir: identity.stateDir };
}

/** The key an inbox's send slots are counted under: its address, lowercase. */
export function inboxKey(inbox: string): string {
  return inbox.trim().toLowerCase();
}
