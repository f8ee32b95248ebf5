import { liveEndpoints } from '../wire-constants.js';

/** Which clause of spec §1.4 fact 4 produced the address. */
export type InboxAddressRule = 'stored-address' | 'session-account' | 'configured-domain' | 'service-domain';

export interface InboxAddressInputs {
  /** credentials.json `inboxId` (a local name, or a full address for custom-domain inboxes). */
  storedInboxId: string;
  /** The JMAP session's primary mail account id, when known. */
  sessionAccountId?: string;
  /** A default domain the operator configured (flag, environment or credentials.json), if any. */
  configuredDomain?: string;
  /** The service's default domain; the live service's when omitted. */
  serviceDomain?: string;
}

/** Resolves `$INBOX` in the order of spec §1.4 fact 4, reporting which rule applied. */
export function resolveInboxAddress(inputs: InboxAddressInputs): { address: string; rule: InboxAddressRule } {
  const stored = inputs.storedInboxId.trim();
  // (a) A stored inbox id that already is an address (custom-domain inboxes) is used as it is.
  if (stored.includes('@')) return { address: stored, rule: 'stored-address' };
  // (b) The session's account id when it is this inbox's address: custom domains without configuration.
  const account = inputs.sessionAccountId?.trim();
  if (account && isAddress(account)) {
    const local = account.slice(0, account.lastIndexOf('@'));
    // Usernames are lowercase on the service; compare without case so a capitalised id still matches.
    if (local.toLowerCase() === stored.toLowerCase()) return { address: account, rule: 'session-account' };
  }
  // (c) then (d): the configured default domain, else the service's own.
  const configured = inputs.configuredDomain?.trim();
  if (configured) return { address: `${stored}@${configured}`, rule: 'configured-domain' };
  return { address: `${stored}@${inputs.serviceDomain ?? liveEndpoints.inboxDomain}`, rule: 'service-domain' };
}

function isAddress(text: string): boolean {
  const at = text.lastIndexOf('@');
  return at > 0 && at < text.length - 1 && !/\s/.test(text);
}
