/**
 * The only module that starts anything: every command, `mcp` included, goes through the CLI built
 * from the operations table. process.env and process.argv are read here and nowhere else.
 */
const { runCli } = await import('./cli/main.js');
process.exitCode = await runCli({ env: process.env, argv: process.argv.slice(2) });
