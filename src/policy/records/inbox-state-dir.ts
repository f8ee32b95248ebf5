import type { InboxIdentity } from '../../auth/account-registry.js';

/**
 * The inbox's name for rules and records (its address when known) and their folder: a proof-of-work directory,
 * or on a connected account the inbox's own folder (credentials-kind.ts), so rules never leak between inboxes.
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
