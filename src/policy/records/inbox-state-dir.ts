import type { InboxIdentity } from '../../auth/account-registry.js';

/**
 * Which inbox the operator's per-inbox rules and records belong to, and the folder holding them
 * (its policy layer, send ledger, audit log and held mail). Every per-inbox path goes through here:
 * a proof-of-work directory holds one inbox and is its folder; a connected account's directory
 * gives each inbox a folder of its own (credentials-kind.ts), so rules never leak between them.
 */

/** The facts of an inbox this needs; an account's `inbox()` answers them for either kind. */
export type InboxFacts = Pick<InboxIdentity, 'inboxId' | 'address' | 'jmapAccountId' | 'stateDir'>;

/** The inbox's name for rules and records (its address when known) and its state folder. */
export function guardedInbox(identity: InboxFacts): { inbox: string; stateDir: string } {
  return { inbox: identity.address ?? identity.jmapAccountId ?? identity.inboxId, stateDir: identity.stateDir };
}

/** The key an inbox's send slots are counted under: its address, lowercase. */
export function inboxKey(inbox: string): string {
  return inbox.trim().toLowerCase();
}
