import type { InboxRecord } from '../../oauth/accounts/account-directory.js';
import { chooseInbox } from '../mail/inbox-choice.js';
import { openInbox, type InboxConnection } from '../mail/mail-store-client.js';
import type { ToolContext } from './hosted-tool.js';

/** The inbox a call chose, opened, and how results name it. */
export interface ChosenInbox {
  record: InboxRecord;
  connection: InboxConnection;
  /** Every result names the inbox it used. */
  named: { agent_id: string; address: string };
}

/** Chooses the call's inbox (ownership checked now) and opens it with a fresh capability. */
export async function openChosenInbox(ctx: ToolContext, agentId: string | undefined): Promise<ChosenInbox> {
  const record = chooseInbox(ctx.caller, agentId, ctx.deps.directory);
  const connection = await openInbox(ctx.deps.mailStore, record.address, ctx.signal);
  return { record, connection, named: { agent_id: record.accountId, address: record.address } };
}
