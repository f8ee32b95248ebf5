import { blobMethods } from './blob/blob-methods.js';
import { emailReadMethods } from './email/email-read-methods.js';
import { emailSetMethods } from './email/email-set-method.js';
import { mailboxMethods } from './mailbox/mailbox-methods.js';
import type { MethodDefinition } from './method-context.js';
import { searchSnippetMethods } from './email/search-snippet-method.js';
import { submissionMethods } from './submission/submission-methods.js';
import { threadIdentityMethods } from './thread-identity-methods.js';

/** Every method the embedded JMAP host answers, by name. */
export const jmapMethods: Readonly<Record<string, MethodDefinition>> = {
  ...threadIdentityMethods,
  ...mailboxMethods,
  ...emailReadMethods,
  ...emailSetMethods,
  ...searchSnippetMethods,
  ...submissionMethods,
  ...blobMethods,
};
