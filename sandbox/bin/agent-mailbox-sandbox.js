#!/usr/bin/env node
import { existsSync } from 'node:fs';

// A checkout before `npm run build` gets a next step instead of a module-not-found trace.
const main = new URL('../dist/main.js', import.meta.url);
if (existsSync(main)) {
  await import(main.href);
} else {
  process.stderr.write(
    `agent-mailbox-sandbox: ${main.pathname} is missing.\nnext: in a checkout run \`npm run build\`; otherwise reinstall the package.\n`,
  );
  process.exitCode = 1;
}
