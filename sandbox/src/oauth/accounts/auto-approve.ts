import { SandboxError } from '../../auth/sandbox-error.js';
import { createOwnedInbox, inboxAddressOf, InboxRequestError, type InboxProvisionerDeps } from './inbox-provisioner.js';
import type { AutoApprovedPerson } from '../oauth-host-context.js';

/** One `--oauth-auto-approve PERSON:INBOX1,INBOX2`. */
export interface AutoApproveSpec {
  person: string;
  /** Names on the sandbox's domain or full addresses (a custom domain); the first is every grant's default. */
  inboxes: string[];
  /**
   * Test-only (no CLI flag): grants approved for this person name no default inbox, as a grant
   * whose default inbox is gone would; the hosted MCP server then asks for agent_id.
   */
  withoutDefault?: boolean;
}

/**
 * Makes sure each person exists and owns the inboxes named for them, creating what is missing
 * (an inbox that exists and is not theirs stops the start: it cannot be handed over silently).
 */
export async function provisionAutoApprove(
  deps: InboxProvisionerDeps,
  specs: readonly AutoApproveSpec[],
): Promise<AutoApprovedPerson[]> {
  const people: AutoApprovedPerson[] = [];
  for (const spec of specs) {
    const person = await deps.directory.signIn(spec.person);
    const accountIds: string[] = [];
    for (const requested of spec.inboxes) {
      let address: string;
      try {
        address = inboxAddressOf(requested, deps.domain);
      } catch (error) {
        if (error instanceof InboxRequestError)
          throw new SandboxError(
            `--oauth-auto-approve ${spec.person}: ${error.message}`,
            'Fix the inbox name in --oauth-auto-approve PERSON:INBOX1,INBOX2.',
          );
        throw error;
      }
      const known = deps.directory.inboxAt(address);
      if (known?.ownerId === person.id) {
        accountIds.push(known.accountId);
        continue;
      }
      if (known || deps.accounts.hasAddress(address)) {
        throw new SandboxError(
          `--oauth-auto-approve: the inbox ${address} exists and does not belong to ${spec.person}.`,
          'Name another inbox, or the person who owns it.',
        );
      }
      accountIds.push((await createOwnedInbox(deps, person.id, address)).accountId);
    }
    const [defaultAccountId] = accountIds;
    if (defaultAccountId === undefined)
      throw new SandboxError(
        `--oauth-auto-approve ${spec.person}: no inbox named.`,
        'Write PERSON:INBOX1,INBOX2 with at least one inbox.',
      );
    people.push({
      personId: person.id,
      name: person.name,
      defaultAccountId: spec.withoutDefault ? undefined : defaultAccountId,
      accountIds,
    });
  }
  return people;
}
