import { dirname } from 'node:path';
import { withDirectoryLock } from '../credentials/directory-lock.js';
import { readPrivateFile, writeFileAtomic } from '../credentials/secure-file.js';
import { applyPolicyChange, wideningChanges, type PolicyChange } from './policy-change.js';
import { parsePolicyText } from './policy-layers.js';
import { emptyPolicy, type PolicyFile } from './policy-schema.js';

/** What a change did to one layer's file. */
interface PolicyUpdate {
  path: string;
  before: PolicyFile;
  after: PolicyFile;
  /** What it widens; empty when it only narrows. */
  widens: string[];
  changed: boolean;
}

/**
 * Applies a change to one layer's file under the directory's lock (0600 in a 0700 directory). A widening is written
 * only when `approveWidening`, asked under the lock, says yes, so no writer slips one past between read and write.
 */
export async function updatePolicyLayer(
  path: string,
  change: PolicyChange,
  approveWidening:
    ((widens: string[], update: { before: PolicyFile; after: PolicyFile }) => Promise<boolean>) | undefined,
): Promise<PolicyUpdate> {
  return withDirectoryLock(dirname(path), 'policy', async () => {
    const text = await readPrivateFile(path);
    const before = text === undefined ? emptyPolicy : parsePolicyText(text, path);
    const after = applyPolicyChange(before, change);
    const changed = JSON.stringify(before) !== JSON.stringify(after);
    const widens = wideningChanges(before, after);
    if (!changed) return { path, before, after, widens, changed: false };
    if (widens.length > 0 && !(await approveWidening?.(widens, { before, after })))
      return { path, before, after, widens, changed: false };
    await writeFileAtomic(path, `${JSON.stringify(after, null, 2)}\n`);
    return { path, before, after, widens, changed: true };
  });
}
