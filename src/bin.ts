import { fileURLToPath } from 'node:url';
import { bundledAssets } from './bundle-assets.js';

/**
 * The only module that starts anything: every command, `mcp` included, goes through the CLI built
 * from the operations table. process.env and process.argv are read here and nowhere else.
 *
 * In a bundled build, `help`, `help <topic>` and every `--help` are answered from pages the build
 * rendered with the real program (scripts/build.mjs), before zod, commander or any command's code
 * is loaded: a shell agent pays for those on every step.
 */
const argv = process.argv.slice(2);
const page = bundledAssets?.pages[argv.join('\0')];
const plainOutput = !process.stdout.isTTY && !process.env.FORCE_COLOR && !process.env.CLICOLOR_FORCE;
if (page && (!page.widthDependent || plainOutput)) {
  process.stdout.write(page.stdout);
  process.stderr.write(page.stderr);
  process.exitCode = page.exitCode;
} else {
  const { runCli } = await import('./cli/main.js');
  // This file is what a watch job must run again: the tsc entry, the package bundle or the skill's script.
  // Ends the process as soon as what was written has reached stdout and stderr (pipes may be async).
  const done = (code: number): void => {
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  };
  process.exitCode = await runCli({ env: process.env, argv, cliPath: fileURLToPath(import.meta.url), done });
}
