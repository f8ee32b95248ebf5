/**
 * The work behind the table's hooks: the CLI loads it with itself, the MCP server on its first call
 * (load.ts), as initialize and tools/list read the table alone. One module: see handlersFirst in scripts/build.mjs.
 */
export { runJmapRequestCall, presentJmapRequestResult } from './jmap-request.js';
export { describeInboxPolicy } from '../policy/describe-inbox-policy.js';
export { presentRegister } from '../../present/present-register.js';
export { openServiceGate } from '../../gate/service-gate.js';
export { checkOutgoing } from '../../request/check-outgoing.js';
export { approveHeldMail, discardHeldMail, findHeld, heldMailDir } from '../../request/approve-held-mail.js';
export { applyAutoReplyRulesNow } from '../../request/auto-reply-now.js';
export { askOperator } from '../../policy/operator-terminal.js';
export { assertNewInboxAllowed, assertNoWakeRunning } from '../../policy/new-inboxes.js';
export { rememberInboxDir } from '../../policy/records/inbox-dirs.js';
export { listOutbox } from '../../policy/records/outbox-store.js';
export { readAudit } from '../../policy/records/audit-log.js';
export { guardedInbox } from '../../policy/records/inbox-state-dir.js';
export { canonicalEntries, tightensAutoReplies } from '../../policy/policy-change.js';
export { updatePolicyLayer } from '../../policy/policy-store.js';
export { describeLayers, effectivePolicy } from '../../policy/effective-policy.js';
export { layerPath, loadPolicyLayers, policyPaths } from '../../policy/policy-layers.js';
export { findSandboxBin } from '../../sandbox-bin/find-sandbox-bin.js';
export { runSandboxBin } from '../../sandbox-bin/run-sandbox-bin.js';
// The MCP server's account registry, which its first tool call builds (the CLI imports it at start).
export { createAccountRegistry } from '../../auth/create-account-registry.js';
