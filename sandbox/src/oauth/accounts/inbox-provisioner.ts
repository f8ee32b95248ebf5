import { usernameLength, usernamePattern } from '../../wire-constants.js';
import type { AccountStore } from '../../auth/account-store.js';
import type { AccountDirectory, InboxRecord } from './account-directory.js';

/** Why an inbox a person asked for cannot be made; the message is shown on the consent page. */
export class InboxRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InboxRequestError';
  }
}

const domainPattern = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

/**
 * The full address of a requested inbox: a bare name lands on the sandbox's domain and follows the
 * username rule (spec §1 fact 1); a full address may be on any domain (a custom domain, spec §1
 * fact 2), with a local part of 1 to 64 characters under the same character rule.
 */
export function inboxAddressOf(requested: string, domain: string): string {
  const text = requested.trim().toLowerCase();
  const at = text.lastIndexOf('@');
  const local = at < 0 ? text : text.slice(0, at);
  const host = at < 0 ? domain : text.slice(at + 1);
  if (!domainPattern.test(host))
    throw new InboxRequestError(`"${host.slice(0, 80)}" is not a domain name; use a name such as ops@acme.test.`);
  const isOwnDomain = host === domain;
  const { min, max } = isOwnDomain ? usernameLength : { min: 1, max: 64 };
  if (local.length < min || local.length > max) {
    throw new InboxRequestError(
      `The inbox name "${local.slice(0, 80)}" has ${local.length} characters; on ${host} it needs ${min} to ${max}.`,
    );
  }
  if (!usernamePattern.test(local)) {
    throw new InboxRequestError(
      `The inbox name "${local.slice(0, 80)}" may hold only lowercase letters, digits, ".", "-" and "_", and must start and end with a letter or digit.`,
    );
  }
  return `${local}@${host}`;
}

/** What making a person's inbox touches: the account store (so no sign-up can take the name), the mail store and the directory. */
export interface InboxProvisionerDeps {
  domain: string;
  accounts: AccountStore;
  directory: AccountDirectory;
  createInbox(address: string): Promise<void>;
}

/**
 * Creates an inbox owned by a person. It is entered in the proof-of-work account store too, under
 * its username on the sandbox's domain and its full address elsewhere: the same name can then never
 * be signed up by an agent, and the JMAP host knows the inbox like any other.
 */
export async function createOwnedInbox(
  deps: InboxProvisionerDeps,
  personId: string,
  requested: string,
): Promise<InboxRecord> {
  const address = inboxAddressOf(requested, deps.domain);
  const at = address.lastIndexOf('@');
  const key = address.slice(at + 1) === deps.domain ? address.slice(0, at) : address;
  if (deps.directory.inboxAt(address) || deps.accounts.hasAddress(address) || !deps.accounts.reserve(key)) {
    throw new InboxRequestError(`The inbox ${address} already exists; choose another name.`);
  }
  try {
    await deps.createInbox(address);
  } catch (error) {
    deps.accounts.release(key);
    throw error;
  }
  await deps.accounts.commit(key, address);
  return deps.directory.addInbox(address, personId);
}
