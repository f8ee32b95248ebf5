#!/usr/bin/env node
// The build after `tsc`: bundles the program with esbuild, carrying the package files it reads
// (presets, help topics, version) and the CLI's help pages rendered by the real program.
//
//   node scripts/build.mjs            dist/chunks/ and dist/front.cjs: the package's CLI and MCP server
//   node scripts/build.mjs --skill    also skill/scripts/agent-mailbox.mjs, one self-contained file
//   node scripts/build.mjs --check    exit 1 when the committed skill script differs from a fresh build
//
// Why esbuild: one file per command path instead of ~400 modules resolved at every start (see the
// cold-start figures in docs/benchmarks.md). The output is deterministic: sorted inputs, no timestamps.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const skillScript = join(root, 'skill', 'scripts', 'agent-mailbox.mjs');
const assetsModule = join(root, 'src', 'bundle-assets.ts');

async function packageFiles() {
  const files = {};
  for (const [dir, ext] of [
    ['presets', '.json'],
    ['skill/references', '.md'],
  ]) {
    for (const name of (await readdir(join(root, dir))).filter((n) => n.endsWith(ext)).sort()) {
      files[`${dir}/${name}`] = await readFile(join(root, dir, name), 'utf8');
    }
  }
  return files;
}

/** Runs the tsc-built CLI in this process for every help invocation the table implies. */
async function renderPages() {
  const { runCli } = await import(join(root, 'dist/cli/main.js'));
  const { operationsFor, cliPathOf } = await import(join(root, 'dist/operations/index.js'));
  const { helpTopics } = await import(join(root, 'dist/help/index.js'));
  const invocations = [[], ['--help'], ['-h'], ['--version'], ['-V'], ['help'], ...helpTopics.map((t) => ['help', t])];
  const seen = new Set();
  for (const op of operationsFor('cli')) {
    const path = cliPathOf(op);
    for (let depth = 1; depth <= path.length; depth++) {
      const words = path.slice(0, depth);
      if (seen.has(words.join(' '))) continue;
      seen.add(words.join(' '));
      invocations.push([...words, '--help'], [...words, '-h']);
    }
  }
  // Pages are what a non-terminal sees (the only case bin.ts uses them): commander wraps and colours
  // --help by process.stdout and these variables, so a build run in a terminal renders the same.
  for (const stream of [process.stdout, process.stderr])
    Object.defineProperty(stream, 'isTTY', { value: false, configurable: true });
  for (const name of ['FORCE_COLOR', 'CLICOLOR_FORCE', 'NO_COLOR', 'COLUMNS']) delete process.env[name];
  const pages = {};
  for (const argv of invocations) {
    let stdout = '';
    let stderr = '';
    const streams = { stdout: { write: (s) => (stdout += s) }, stderr: { write: (s) => (stderr += s) } };
    const exitCode = await runCli({ env: {}, argv, streams });
    const widthDependent = argv.includes('--help') || argv.includes('-h') || argv.length === 0;
    pages[argv.join('\0')] = { stdout, stderr, exitCode, widthDependent };
  }
  return pages;
}

async function collectAssets() {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  return { version: pkg.version, files: await packageFiles(), pages: await renderPages() };
}

/**
 * src/bundle-assets.ts's body in a bundle: the version and package files inline, the help pages in
 * a module of their own that only a help request imports (a chunk of its own in the split build;
 * most of the assets' bytes, which every other command would otherwise load).
 */
function assetsPlugin(assets) {
  const { pages, ...rest } = assets;
  return {
    name: 'bundled-assets',
    setup(b) {
      b.onResolve({ filter: /^agent-mailbox:pages$/ }, () => ({ path: 'pages', namespace: 'agent-mailbox-pages' }));
      b.onLoad({ filter: /.*/, namespace: 'agent-mailbox-pages' }, () => ({
        contents: `export const pages = ${JSON.stringify(pages)};`,
        loader: 'js',
      }));
      b.onLoad({ filter: /bundle-assets\.ts$/ }, (args) =>
        args.path === assetsModule
          ? {
              contents: `export const bundledAssets = { ...${JSON.stringify(rest)}, loadPages: async () => (await import('agent-mailbox:pages')).pages };`,
              loader: 'js',
            }
          : undefined,
      );
    },
  };
}

/**
 * Replaces one dependency module with `contents` in the bundles. The build fails if the module was
 * never met, so a dependency that moves its files cannot silently bring the original back.
 */
function standIn(name, filter, contents) {
  return {
    name,
    setup(b) {
      let met = false;
      b.onLoad({ filter }, () => {
        met = true;
        return { contents, loader: 'js' };
      });
      b.onEnd((result) => {
        if (!met && result.errors.length === 0)
          throw new Error(`${name}: no module matched ${filter}; update scripts/build.mjs`);
      });
    },
  };
}

/**
 * zod's namespace re-exports every locale (~40 languages, the largest part of zod in a bundle);
 * messages here are English only, so the bundle keeps `en` and drops the rest from every start.
 */
const englishOnlyZod = standIn(
  'zod-english-only',
  /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/,
  'export { default as en } from "./en.js";',
);

/**
 * The MCP SDK's server package imports its Ajv provider (Ajv with every format, ~295 KB) through its
 * runtime shim, for a default that src/mcp/server.ts always replaces: answers to confirmations are
 * checked by the SDK's smaller cfworker provider, loaded on the first answer (src/mcp/confirm-form.ts).
 * The bundles carry a shim whose default refuses to be built, so no start loads Ajv.
 */
const noSdkAjv = standIn(
  'no-sdk-ajv',
  /[\\/]@modelcontextprotocol[\\/]server[\\/]dist[\\/]shimsNode\.mjs$/,
  'import process from "node:process"; export class DefaultJsonSchemaValidator { constructor() { throw new Error("agent-mailbox bundles leave out Ajv: pass jsonSchemaValidator"); } } export { process };',
);

/**
 * `import process from 'node:process'` (env-paths, open, the SDK's shim) makes node build the builtin's ES module
 * facade, which reads every property of `process`: its lazy getters load the diagnostic report and more, a few
 * milliseconds of every start. The global is the same object.
 */
const globalProcess = {
  name: 'global-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?process$/ }, () => ({ path: 'process', namespace: 'global-process' }));
    b.onLoad({ filter: /.*/, namespace: 'global-process' }, () => ({
      contents: 'module.exports = process;',
      loader: 'js',
    }));
  },
};

/**
 * esbuild gives code a chunk of its own for each set of entries that reach it, and each module an import()
 * names is an entry. The modules below are only imported once the handlers are loaded (a call is running):
 * each is made to import the handlers too, so it reaches all of their code rather than a part of it, and
 * does not cut the chunks every command opens into more files. At run time the import finds them loaded.
 */
const afterHandlers = [
  'src/request/guard/check-batch.ts',
  'src/request/guard/mail/other-sends.ts',
  'src/watch/index.ts',
  'src/auth/oauth/grant-flows.ts',
  'src/auth/register-account.ts',
  'src/pow/solve-pow.ts',
  'src/request/wait-for-mail.ts',
  'src/mail/download-blob-to-file.ts',
  'src/present/hidden/analyse-html.ts',
  'src/present/hidden/compare-plain-to-visible.ts',
];
const handlersFirst = {
  name: 'handlers-first',
  setup(b) {
    const handlers = join(root, 'src', 'operations', 'handlers', 'index.ts');
    const files = new Set(afterHandlers.map((file) => join(root, file)));
    // A file renamed or removed would leave its entry doing nothing, and the chunks cut up again unnoticed.
    const missing = [...files].filter((file) => !existsSync(file));
    if (missing.length > 0) throw new Error(`handlersFirst names files that do not exist: ${missing.join(', ')}`);
    b.onLoad({ filter: /\.ts$/ }, async (args) =>
      files.has(args.path)
        ? { contents: `import ${JSON.stringify(handlers)};\n${await readFile(args.path, 'utf8')}`, loader: 'ts' }
        : undefined,
    );
  },
};

/**
 * commander requires node:child_process at load for executable subcommands, which this CLI never declares: the
 * builtin and the socket and datagram modules it pulls in are loaded on first spawn instead.
 */
const commanderLazySpawn = {
  name: 'commander-lazy-spawn',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]commander[\\/]lib[\\/]command\.js$/.test(args.importer)
        ? { path: 'child_process', namespace: 'commander-lazy-spawn' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'commander-lazy-spawn' }, () => ({
      contents: 'module.exports = { spawn: (...args) => require("node:child_process").spawn(...args) };',
      loader: 'js',
    }));
  },
};

/**
 * The confusables table (unhomoglyph's data.json, 118 KB), read on the first non-ASCII code point
 * (src/trust/confusables-table.ts, the same contract), already packed into three strings
 * (src/trust/packed-prototypes.ts, whose lookup both builds use): parsing them takes well under a
 * millisecond where the table as an object took eleven. The package's bundle reads them then from
 * dist/confusables.json, so a listing in ASCII never reads those bytes; the skill, one file, carries
 * them as string literals.
 */
const confusablesData = JSON.parse(await readFile(join(root, 'node_modules', 'unhomoglyph', 'data.json'), 'utf8'));
const { packPrototypes } = await import(join(root, 'dist', 'trust', 'packed-prototypes.js'));
const packedPrototypes = JSON.stringify(packPrototypes(confusablesData));
const confusablesFile = join(root, 'dist', 'confusables.json');
const confusablesModule = /(^|[\\/])src[\\/]trust[\\/]confusables-table\.(ts|js)$/;
const asciiPrototypes = Object.fromEntries(
  Object.entries(confusablesData).filter(([codePoint]) => codePoint <= '\x7F'),
);
function prototypeTable(read) {
  return standIn(
    'prototype-table',
    confusablesModule,
    [
      `import { isPackedPrototypes, lookUpPrototype } from ${JSON.stringify(join(root, 'src', 'trust', 'packed-prototypes.ts'))};`,
      read,
      'let packed;',
      'export function prototypeFor(codePoint) {',
      '  if (packed === undefined) {',
      '    const read = readTable();',
      '    if (!isPackedPrototypes(read)) throw new Error("agent-mailbox: its confusables table is damaged; reinstall the package.");',
      '    packed = read;',
      '  }',
      '  return lookUpPrototype(packed, codePoint);',
      '}',
      'export function prototypeTableRead() { return packed !== undefined; }',
      `export const asciiPrototypes = ${JSON.stringify(asciiPrototypes)};`,
    ].join('\n'),
  );
}
const tableInline = prototypeTable(`const readTable = () => ${packedPrototypes};`);
// A chunk sits in dist/chunks/ (checked after the build), the table one level up.
const tableBeside = prototypeTable(
  'import { readFileSync } from "node:fs";\nconst readTable = () => JSON.parse(readFileSync(new URL("../confusables.json", import.meta.url), "utf8"));',
);

const requireBanner =
  "import { createRequire as __amCreateRequire } from 'node:module';\nconst require = __amCreateRequire(import.meta.url);";
const shared = (plugins) => ({
  entryPoints: [join(root, 'src', 'bin.ts')],
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // esbuild would write each /\p{…}/u as `new RegExp(…)`, which node compiles at load, every start, where a
  // literal is compiled on first use; node 20 reads these escapes.
  supported: { 'regexp-unicode-property-escapes': true },
  // CommonJS dependencies (nodemailer, smtp-server) call require() for node built-ins.
  banner: { js: `#!/usr/bin/env node\n${requireBanner}` },
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [handlersFirst, englishOnlyZod, noSdkAjv, globalProcess, commanderLazySpawn, ...plugins],
});

// The skill is one file an agent copies into its skills folder, every path in it: short local names take it
// from 2.6 to 1.9 MB. Errors reach a user as rendered MailboxErrors, never as a stack, so the names are not
// missed there; dist/ keeps them for the stacks a developer reads.
const skill = (plugin) => ({ ...shared([plugin, tableInline]), outfile: skillScript, minifyIdentifiers: true });

/**
 * One chunk of the split build as CommonJS: esbuild's own conversion, with each `import()` made a
 * require (the chunks' loader gives them the chunks' `require`) and import.meta.url the chunk's file.
 */
async function commonJsChunk(text) {
  const usesMeta = text.includes('import.meta');
  const { code, warnings } = await transform(text.replace(/^#!.*\n/, ''), {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    loader: 'js',
    supported: { 'dynamic-import': false, 'regexp-unicode-property-escapes': true },
    ...(usesMeta && {
      define: { 'import.meta.url': '__amImportMetaUrl' },
      banner: 'var __amImportMetaUrl = require("node:url").pathToFileURL(__filename).href;',
    }),
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: 'none',
  });
  // Any other use of import.meta would be an empty object in CommonJS: the build stops instead of shipping it.
  if (warnings.length > 0) throw new Error(`a chunk does not convert to CommonJS cleanly: ${warnings[0].text}`);
  return code;
}

const args = new Set(process.argv.slice(2));
const assets = await collectAssets();
const plugin = assetsPlugin(assets);
if (args.has('--check')) {
  const result = await build({ ...skill(plugin), write: false });
  const fresh = result.outputFiles[0].text;
  const committed = await readFile(skillScript, 'utf8').catch(() => '');
  if (fresh !== committed) {
    process.stderr.write(
      'skill/scripts/agent-mailbox.mjs is out of date with the sources: run `npm run build:skill` and commit it.\n',
    );
    process.exit(1);
  }
  process.exit(0);
}
// Chunk names carry content hashes: old ones would pile up (and ship) without this.
await rm(join(root, 'dist', 'chunks'), { recursive: true, force: true });
// The package ships presets/, skill/ and package.json beside dist/, and its front serves the help pages,
// so its bundle reads those files where they are (src/package-root.ts) instead of carrying them. esbuild
// splits only ES modules; each file is then made CommonJS, which the front loads with V8's code cache
// (src/start/load-bundle.ts): node 20 keeps no code cache for ES modules.
const split = await build({
  ...shared([tableBeside]),
  entryPoints: [join(root, 'src', 'start', 'start-mailbox.ts')],
  banner: {},
  outdir: join(root, 'dist'),
  splitting: true,
  entryNames: 'chunks/[name]-[hash]',
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  write: false,
});
await mkdir(join(root, 'dist', 'chunks'), { recursive: true });
for (const file of split.outputFiles) await writeFile(file.path, await commonJsChunk(file.text));
const { metafile } = split;
const entryChunk = Object.entries(metafile.outputs).find(([, o]) => o.entryPoint === 'src/start/start-mailbox.ts')?.[0];
if (!entryChunk?.startsWith('dist/chunks/'))
  throw new Error(`the entry chunk landed in ${entryChunk}, not in dist/chunks/`);
const tableChunk = Object.entries(metafile.outputs).find(([, o]) =>
  Object.keys(o.inputs).some((input) => confusablesModule.test(input)),
)?.[0];
if (!tableChunk?.startsWith('dist/chunks/'))
  throw new Error(
    `the confusables table landed in ${tableChunk}, not in dist/chunks/: update its path in scripts/build.mjs`,
  );
await writeFile(confusablesFile, packedPrototypes);
// The root package.json makes .js files ES modules; the chunks are CommonJS (node loads them so too).
await writeFile(join(root, 'dist', 'chunks', 'package.json'), '{ "type": "commonjs" }\n');
// The entry that watch jobs, hosts and older installs name: it hands over to the front.
await writeFile(
  join(root, 'dist', 'bin.js'),
  "#!/usr/bin/env node\nimport { createRequire } from 'node:module';\n\ncreateRequire(import.meta.url)('./front.cjs');\n",
);
// The package entry's front (src/front.ts): CommonJS, so a help page is served before node starts
// its ES module loader; the pages it serves sit beside it as JSON lines with an index, so a request
// parses its own page only.
const { pagesFile } = await import(join(root, 'dist/start/prerendered-page.js'));
await writeFile(join(root, 'dist', 'help-pages.jsonl'), pagesFile(assets.pages));
await build({
  entryPoints: [join(root, 'src', 'front.ts')],
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: join(root, 'dist', 'front.cjs'),
  define: { AGENT_MAILBOX_ENTRY_CHUNK: JSON.stringify(basename(entryChunk)) },
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});
if (args.has('--skill')) {
  await build(skill(plugin));
}
