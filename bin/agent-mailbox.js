#!/usr/bin/env node
// CommonJS (bin/package.json): a help page is answered before node starts its ES module loader.
require('../dist/front.cjs');
