import * as z from 'zod';
import type { Account } from '../../auth/account-registry.js';

export const inboxInput = z
  .string()
  .optional()
  .describe('Connected accounts only: the inbox to act for (from list_inboxes); omit for the default.');

/** A result on a connected account names the inbox it acted for: address and the service's accountId. */
export async function namingInbox<T extends Record<string, unknown>>(account: Account, result: T): Promise<T> {
  const identity = await account.inbox();
  if (identity.kind !== 'oauth') return result;
  return { ...result, inbox: identity.address ?? identity.inboxId, serviceAccountId: identity.serviceAccountId };
}
