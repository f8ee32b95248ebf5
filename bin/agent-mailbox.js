#!/usr/bin/env node
// CommonJS (bin/package.json): a help page is answered before node starts its ES module loader.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

// Both entries of the build, checked here once: a checkout before `npm run build` gets a next step.
const dist = join(__dirname, '..', 'dist');
const missing = ['front.cjs', 'bin.js'].map((name) => join(dist, name)).find((file) => !existsSync(file));
if (missing) {
  process.stderr.write(
    `agent-mailbox: ${missing} is missing.\nnext: in a checkout run \`npm run build\`; otherwise reinstall the package.\n`,
  );
  process.exitCode = 1;
} else {
  require(join(dist, 'front.cjs'));
}
