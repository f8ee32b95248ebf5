import { blobMethods } from './blob-methods.js';
import { emailCopyMethods } from './email/email-copy-method.js';
import { emailImportMethods } from './email/email-import-method.js';
import { emailParseMethods } from './email/email-parse-method.js';
import { emailQueryMethods } from './email/email-query-methods.js';
import { emailReadMethods } from './email/email-read-methods.js';
import { emailSetMethods } from './email/email-set-method.js';
import { searchSnippetMethods } from './email/search-snippet-method.js';
import { identityMethods } from './identity-methods.js';
import { mailboxMethods } from './mailbox/mailbox-methods.js';
import { mailboxQueryMethods } from './mailbox/mailbox-query-methods.js';
import { mailboxSetMethods } from './mailbox/mailbox-set-method.js';
import type { MethodDefinition } from './method-context.js';
import { submissionMethods } from './submission-methods.js';
import { threadMethods } from './thread-methods.js';
import { vacationMethods } from './vacation-methods.js';

/** Every method the embedded JMAP host answers, by name; any other name is unknownMethod (RFC 8620 §3.6.2). */
export const jmapMethods: Readonly<Record<string, MethodDefinition>> = {
  ...threadMethods,
  ...mailboxMethods,
  ...mailboxQueryMethods,
  ...mailboxSetMethods,
  ...emailReadMethods,
  ...emailQueryMethods,
  ...emailSetMethods,
  ...emailImportMethods,
  ...emailCopyMethods,
  ...emailParseMethods,
  ...searchSnippetMethods,
  ...identityMethods,
  ...submissionMethods,
  ...vacationMethods,
  ...blobMethods,
};
