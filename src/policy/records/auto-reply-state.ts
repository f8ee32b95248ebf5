import { join } from 'node:path';
import { readPrivateFile, writeFileAtomic } from '../../credentials/secure-file.js';

/** What the guard last settled about an inbox's auto-reply (its vacation response). */

const autoReplyStateFile = 'auto-reply.json';

interface AutoReplyState {
  /** Digest of the send rules the auto-reply was last looked at under. */
  checked?: string;
  /** The rules refuse the enabled auto-reply and it is not switched off yet. */
  pending?: boolean;
  switchedOffAt?: string;
}

export async function readAutoReplyState(stateDir: string): Promise<AutoReplyState> {
  try {
    const parsed: unknown = JSON.parse((await readPrivateFile(join(stateDir, autoReplyStateFile))) ?? '{}');
    if (typeof parsed !== 'object' || parsed === null) return { pending: true };
    const { checked, pending, switchedOffAt } = parsed as Record<string, unknown>;
    return {
      ...(typeof checked === 'string' ? { checked } : {}),
      ...(pending === true ? { pending } : {}),
      ...(typeof switchedOffAt === 'string' ? { switchedOffAt } : {}),
    };
  } catch {
    // A damaged record owes a look: the switch must not be forgotten.
    return { pending: true };
  }
}

export async function writeAutoReplyState(stateDir: string, state: AutoReplyState): Promise<void> {
  await writeFileAtomic(join(stateDir, autoReplyStateFile), `${JSON.stringify(state)}\n`);
}
