/**
 * The only module that starts anything. `agent-mailbox mcp` runs the stdio MCP server; every
 * other subcommand goes to the CLI. process.env and process.argv are read here and nowhere else.
 */
const argv = process.argv.slice(2);

if (argv[0] === 'mcp') {
  const { runMcpServer } = await import('./mcp/main.js');
  await runMcpServer({ env: process.env, argv: argv.slice(1) });
} else {
  const { runCli } = await import('./cli/main.js');
  process.exitCode = await runCli({ env: process.env, argv });
}
