import { resolve } from 'node:path';
import type * as z from 'zod';
import type { Account } from '../../auth/account-registry.js';
import { askOperator } from '../../policy/operator-terminal.js';
import { checkOutgoing } from '../../request/check-outgoing.js';
import { presentJmapResult as presentJmapText } from '../../present/present-jmap-result.js';
import { runJmapRequest } from '../../request/run-jmap-request.js';
import type { Present } from '../../render/present-result.js';
import { gateContext, type OperationContext } from '../define-operation.js';
import type { jmapRequestInput, jmapRequestOperatorInput, JmapRequestOutput } from '../jmap-request.js';

type JmapRequestInput = z.infer<typeof jmapRequestInput> & Partial<z.infer<typeof jmapRequestOperatorInput>>;

export async function runJmapRequestCall(input: JmapRequestInput, ctx: OperationContext): Promise<JmapRequestOutput> {
  if (input.include_held)
    await askOperator(ctx.terminal, 'jmap_request --include-held', [
      "include-held shows this inbox's mail that your receive rules hold back from the agent, in this run's output only.",
    ]);
  const account = ctx.accounts.open(input.credentials_dir, { inbox: input.inbox });
  if (!input.download)
    return namingInbox(
      account,
      await runJmapRequest(account, input, {
        ...gateContext(ctx),
        progress: ctx.progress,
        guard: { confirm: ctx.confirm },
      }),
    );
  const { downloadDir } = await account.config();
  const { downloadBlobToFile } = await import('../../mail/download-blob-to-file.js');
  const saved = await downloadBlobToFile(
    account,
    {
      blobId: input.download.blob_id,
      ...(input.download.mail_id ? { mailId: input.download.mail_id } : {}),
      ...(input.download.name ? { name: input.download.name } : {}),
      ...(input.download.type ? { type: input.download.type } : {}),
    },
    {
      ...gateContext(ctx),
      guard: { confirm: ctx.confirm },
      check: checkOutgoing,
      ...(input.include_held === true ? { includeHeld: true } : {}),
      // The operator's download directory, else the working directory; never a path from mail.
      allowedDirs: [downloadDir ? resolve(ctx.workingDir, downloadDir) : ctx.workingDir],
      saveAs: (name) => ({ operation: 'jmap_request', input: { download: { ...input.download, name } } }),
    },
  );
  const summary = `Saved ${saved.size} bytes (${saved.type}) to ${saved.path}.`;
  return namingInbox(account, { ok: true, summary, dryRun: false, saved });
}

/** A result on a connected account names the inbox it acted for: address and the service's accountId. */
async function namingInbox<T extends Record<string, unknown>>(account: Account, result: T): Promise<T> {
  const identity = await account.inbox();
  if (identity.kind !== 'oauth') return result;
  return { ...result, inbox: identity.address ?? identity.inboxId, serviceAccountId: identity.serviceAccountId };
}

export const presentJmapRequestResult: Present<JmapRequestOutput> = (result, door, describeNext) => {
  const shown = presentJmapText('saved' in result ? { ...result, failures: [] } : result, door, { describeNext });
  const text = result.inbox === undefined ? shown.text : `Inbox: ${result.inbox}\n${shown.text}`;
  return { text, lead: [result.summary], isError: shown.isFailure };
};
