/**
 * The folder holding one inbox's own state under the operator's rules: its policy layer, send
 * ledger, audit log and held mail. Every per-inbox path goes through here, so a credentials
 * directory that holds several inboxes can give each a folder of its own in one place.
 */

/** Where the state of `inbox` lives for a credentials directory: today the directory itself (one inbox per directory). */
export function inboxStateDir(credentialsDir: string, _inbox?: string): string {
  return credentialsDir;
}

/** The key an inbox's send slots are counted under: its address, lowercase. */
export function inboxKey(inbox: string): string {
  return inbox.trim().toLowerCase();
}
