#!/usr/bin/env node
// CommonJS (bin/package.json): a help page is answered before node starts its ES module loader.
const { join } = require('node:path');

const front = join(__dirname, '..', 'dist', 'front.cjs');
try {
  require.resolve(front);
} catch {
  process.stderr.write(`agent-mailbox: ${front} is missing.\nnext: in a checkout run \`npm run build\`; otherwise reinstall the package.\n`);
  process.exit(1);
}
require(front);
