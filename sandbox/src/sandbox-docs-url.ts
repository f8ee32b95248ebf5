/**
 * Where the sandbox's error bodies send a reader (`docs_url`, spec §7.2): the page on the sandbox
 * in this repository. One constant for every host of the sandbox; a test checks the page exists.
 */
export const sandboxDocsPath = 'docs/sandbox.md';
export const sandboxDocsUrl = `https://github.com/agent-mailbox/agent-mailbox/blob/main/${sandboxDocsPath}`;
