import { z } from 'zod';
import { agentEntry } from '../../oauth/accounts/agents-endpoint.js';
import { defineHostedTool } from './hosted-tool.js';

export const listAgentsTool = defineHostedTool({
  name: 'list_agents',
  title: 'List the inboxes',
  description:
    'List the inboxes this connection may use: each with its accountId (the agent_id of every other tool), inbox name and address, and which one is the default. A connection made with an inbox apiKey lists that one inbox.',
  input: z.object({}),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(_input, ctx) {
    const { caller, deps } = ctx;
    const inboxes = caller.kind === 'api_key' ? [caller.inbox] : deps.directory.inboxesOf(caller.personId);
    const defaultId =
      caller.kind === 'api_key'
        ? caller.inbox.accountId
        : inboxes.length === 1
          ? inboxes[0]?.accountId
          : inboxes.find((inbox) => inbox.accountId === caller.defaultAccountId)?.accountId;
    const agents = inboxes.map((inbox) => ({
      ...agentEntry(inbox, deps.domain),
      address: inbox.address,
      is_default: inbox.accountId === defaultId,
    }));
    const next =
      agents.length === 0
        ? ['This account owns no inbox yet: the person can create one by authorizing again.']
        : defaultId === undefined
          ? ['No inbox is the default: pass agent_id (an accountId above) to every mail tool.']
          : [`Mail tools use ${defaultId} unless agent_id names another of these.`];
    return { data: { agents, default_agent_id: defaultId ?? null, _next: next } };
  },
});
