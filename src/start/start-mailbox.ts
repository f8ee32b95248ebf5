import { bundledAssets } from '../bundle-assets.js';
import { servesMcp } from './hold-heap.js';
import { answerFromPage, mayAskForPage } from './prerendered-page.js';

/**
 * Everything after node has started, called by the package's front (src/front.ts) and the skill's bin.ts; only
 * these read process.env. In the skill, pages the build rendered (scripts/build.mjs) answer `help` and every
 * `--help` before zod, commander or any command's code loads: a shell agent pays for those on every step.
 */
export async function startMailbox(argv: readonly string[], cliPath: string): Promise<void> {
  // The pages are most of what a bundle carries: only an argv that may ask for one loads them.
  const pages = bundledAssets && mayAskForPage(argv) ? await bundledAssets.loadPages() : undefined;
  const pageExit = answerFromPage(pages, { argv, env: process.env, stdout: process.stdout, stderr: process.stderr });
  if (pageExit !== undefined) {
    process.exitCode = pageExit;
    return;
  }
  await import('./zod-jitless.js');
  if (servesMcp(argv)) process.exitCode = await serveMcp(cliPath);
  else await runCommand(argv, cliPath);
}

/** `mcp` with no options, as hosts start it: straight to the server, without building the CLI program. */
async function serveMcp(cliPath: string): Promise<number> {
  const { runMcpServer, toMailboxError, renderError } = await import('../mcp/main.js');
  try {
    await runMcpServer({ env: process.env, cliPath });
    return 0;
  } catch (error) {
    // As the CLI reports a command that owns stdout: one line on stderr, the door's exit code.
    const rendered = renderError(toMailboxError(error), 'cli');
    process.stderr.write(`agent-mailbox mcp: ${rendered.text}\n`);
    return rendered.exitCode;
  }
}

/** Any other command: through the CLI built from the table. */
async function runCommand(argv: readonly string[], cliPath: string): Promise<void> {
  const { runCli } = await import('../cli/main.js');
  // Ends the process once output has drained (pipes may be async); a watch job runs this file again.
  const done = (code: number): void => {
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  };
  process.exitCode = await runCli({ env: process.env, argv: [...argv], cliPath, done });
}
