import type { FrontDoor } from '../render/front-door.js';
import type { AnyOperation } from './define-operation.js';
import { connectOperation } from './connected/connect.js';
import { disconnectOperation } from './connected/disconnect.js';
import { listInboxesOperation } from './connected/list-inboxes.js';
import { helpOperationOver } from './help.js';
import { jmapRequestOperation } from './jmap-request.js';
import { mcpOperation } from './mcp.js';
import { outboxOperations } from './policy/outbox-commands.js';
import { policyListOperations } from './policy/policy-lists.js';
import { policySetOperation } from './policy/policy-set.js';
import { policyShowOperation } from './policy/policy-show.js';
import { registerOperation } from './register.js';
import { drillOperations, sandboxOperation } from './sandbox.js';
import { watchOperations } from './watch.js';

export type { AnyOperation };

/** `help`, whose tools topic lists the agent's tools: what an MCP host offers is what the skill's shell commands do too. */
export const helpOperation = helpOperationOver(() => operationsFor('mcp'));

/** THE table. The cast widens each entry's input type: the doors validate with the entry's own schema first. */
export const operations: readonly AnyOperation[] = [
  registerOperation,
  jmapRequestOperation,
  listInboxesOperation,
  helpOperation,
  ...watchOperations,
  connectOperation,
  disconnectOperation,
  policyShowOperation,
  policySetOperation,
  ...policyListOperations,
  ...outboxOperations,
  sandboxOperation,
  ...drillOperations,
  mcpOperation,
] as unknown as readonly AnyOperation[];

export function operationsFor(door: FrontDoor, ops: readonly AnyOperation[] = operations): readonly AnyOperation[] {
  return ops.filter((op) => (op.doors ?? ['cli', 'mcp']).includes(door));
}

export { cliPathOf } from './cli-spelling.js';
