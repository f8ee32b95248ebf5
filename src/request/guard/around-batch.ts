import type { CheckContext, CheckOutcome, OutgoingBatch } from '../../gate/outgoing.js';
import { rememberLocalSecrets } from '../../policy/local-secrets.js';
import { withAutoReplyRules } from './auto-reply-rules.js';
import { checkComposedBlobs } from './mail/composed-blobs.js';
import { withCreatedMail } from './mail/stamped-results.js';

/**
 * What the guard does around every checked batch, whether or not it sends: the secret scan learns
 * this OS user's stored secrets by value, a blob made from other blobs has its sources scanned
 * whole, and mail the batch writes into the inbox is checked for
 * the service's own Authentication-Results and recorded once the server created it; an auto-reply
 * the rules now refuse is switched off (auto-reply-rules.ts, which reads run through too).
 */
export async function aroundBatch(
  outgoing: OutgoingBatch,
  context: CheckContext,
  next: () => Promise<CheckOutcome | void>,
): Promise<CheckOutcome | void> {
  const config = await context.config();
  await rememberLocalSecrets({
    inUse: context.credentialsDir,
    defaultDir: config.credentialsDir,
    userConfigDir: config.userConfigDir,
  });
  await checkComposedBlobs(outgoing, context);
  return withAutoReplyRules(outgoing, context, await withCreatedMail(outgoing.request, context, next));
}
