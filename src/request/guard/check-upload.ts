import type { CheckContext, CheckOutcome, OutgoingUpload } from '../../gate/outgoing.js';
import { checkNamedFile } from '../../policy/file-access.js';
import { callMemo } from './mail/blob-lookup.js';
import { guardScope } from './guard-scope.js';
import { refuseWhileWaking } from './guard-refusal.js';

/** An upload of a named file: refused in a wake and outside the attachment folders; its bytes kept for the scan. */
export async function checkUpload(outgoing: OutgoingUpload, context: CheckContext): Promise<CheckOutcome> {
  await refuseWhileWaking(context, 'an upload');
  const scope = await guardScope(context);
  await checkNamedFile(outgoing.source.path, {
    purpose: 'attachment',
    credentialsDirs: [context.credentialsDir],
    attachFrom: scope.policy.send.attachFrom.map((entry) => ({ dir: entry.value, from: entry.from })),
  });
  return {
    settle: async (answer) => {
      if (answer.kind !== 'upload') return;
      callMemo(context).uploads.set(answer.blobId, { bytes: outgoing.bytes });
    },
  };
}
