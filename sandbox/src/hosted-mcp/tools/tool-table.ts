import { fetchTool, searchTool } from './connector-tools.js';
import { helpToolFor } from './help-tool.js';
import type { HostedTool } from './hosted-tool.js';
import { jmapRequestTool } from './jmap-request-tool.js';
import { listAgentsTool } from './list-agents-tool.js';
import { readInboxTool, readMessageTool, searchMessagesTool } from './read-tools.js';
import { runPresetTool } from './run-preset-tool.js';
import { replyToMessageTool, sendEmailTool } from './send-tools.js';

/**
 * The hosted server's tools (spec §2.8), in the order a client lists them. There is no register:
 * inboxes are made by a person (OAuth consent) or by an agent's own proof of work. jmap_request is
 * left out entirely when the operator switches it off, so no path reaches it.
 */
export function hostedTools(isJmapRequestEnabled: boolean): HostedTool[] {
  const tools: HostedTool[] = [
    listAgentsTool,
    readInboxTool,
    readMessageTool,
    searchMessagesTool,
    sendEmailTool,
    replyToMessageTool,
    searchTool,
    fetchTool,
    runPresetTool,
    ...(isJmapRequestEnabled ? [jmapRequestTool] : []),
  ] as HostedTool[];
  tools.push(helpToolFor(() => tools));
  return tools;
}
