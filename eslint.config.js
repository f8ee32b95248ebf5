// Guard rails: typescript-eslint's recommended rules over src/ and test/; no console outside the
// front ends (CLI, entry, sandbox entry, bench and demo scripts), because core logs through
// src/log.ts to stderr and stdout stays the MCP protocol; no import cycle at run time; and nothing
// but the gate sends to the service.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Fixtures that break a rule on purpose; test/unit/architecture/lint-rules.test.ts lints them itself. */
export const ruleFixtures = 'test/fixtures/lint/**';

/**
 * The HTTP layer's senders. Only the gate's one sending module may import them, so every request to
 * the service passes the call's deadline (and, for JMAP, the check stage) in src/gate/.
 */
const httpSenders = [
  '**/http/send-http.js',
  '**/http/http-request.js',
  '**/http/open-event-stream.js',
  '**/http/node-http-fetch.js',
];
const gateSender = 'src/gate/send-to-service.ts';
/** The JMAP client sends whatever it is asked to: only the gate, which checks first, may hold one. */
const jmapClient = ['**/jmap/jmap-client.js'];

/**
 * The client and the sandbox are two packages that share no code: neither imports the other, by a
 * path out of its own tree (resolved, so any depth of `../` counts) or by package name.
 */
const apart = {
  client: 'The client never imports the sandbox: it starts the agent-mailbox-sandbox bin (src/sandbox-bin/).',
  sandbox:
    "The sandbox imports nothing of the client: copy what it needs into sandbox/src (wire constants: a test checks they equal the client's).",
};
const importOfPackage = (pattern, message) =>
  ['ImportDeclaration', 'ImportExpression', 'ExportNamedDeclaration', 'ExportAllDeclaration'].map((node) => ({
    selector: `${node}[source.value=${pattern}]`,
    message,
  }));

const restricted = (groups) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: groups.map((group) => ({
        group,
        message:
          "Requests to the service go through the gate (src/gate/): it owns the call's deadline and runs the check stage before every batch and upload.",
      })),
    },
  ],
});

export default tseslint.config(
  // .stryker-tmp/ holds Stryker's sandbox copies while npm run mutate runs; reports/ its output.
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'bin/**',
      'sandbox/dist/**',
      'sandbox/bin/**',
      'coverage/**',
      'skill/scripts/*.mjs',
      '.stryker-tmp/**',
      'reports/**',
      ruleFixtures,
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // The modules a cycle runs through are parsed as TypeScript, and `./x.js` specifiers name the
      // `.ts` source, as TypeScript's NodeNext resolution reads them.
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'no-console': 'error',
      // Sanitisers of mail text and file names match control characters on purpose.
      'no-control-regex': 'off',
      // A variable a closure reads before its one assignment (late-bound hosts) cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Run-time cycles only: a type-only import is erased by tsc. A dynamic import() counts.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { basePath: import.meta.dirname, zones: [{ target: './src', from: './sandbox', message: apart.client }] },
      ],
      'no-restricted-syntax': [
        'error',
        ...importOfPackage('/^agent-mailbox-sandbox(\\/|$)/', apart.client),
        // zod's `z` is a namespace object esbuild must keep whole (~150 KB more for every start to compile);
        // `import * as z` lets it drop what no module reads.
        {
          selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
          message: "Import zod as `import * as z from 'zod'`: `{ z }` keeps all of zod in the bundles.",
        },
      ],
    },
  },
  {
    files: ['sandbox/src/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: './sandbox/src',
              from: './',
              except: ['./sandbox/src', './node_modules', './sandbox/node_modules'],
              message: apart.sandbox,
            },
          ],
        },
      ],
      'no-restricted-syntax': ['error', ...importOfPackage('/^agent-mailbox(\\/|$)/', apart.sandbox)],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/http/**', 'src/gate/**', 'src/auth/**'],
    rules: restricted([httpSenders, jmapClient, ['**/gate/send-to-service.js']]),
  },
  {
    // The token chain renews tokens on the auth host through the gate's sender, under the call's deadline.
    files: ['src/auth/**/*.ts'],
    rules: restricted([httpSenders, jmapClient]),
  },
  {
    files: ['src/gate/**/*.ts'],
    ignores: [gateSender],
    rules: restricted([httpSenders]),
  },
  {
    files: ['src/cli/**/*.ts', 'src/bin.ts', 'sandbox/src/main.ts', 'bench/**/*.ts', 'demo/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Build scripts run on node directly (plain ESM, no TypeScript step before them).
    files: ['scripts/**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        URL: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
  {
    // Tests print skip reasons and poke at loosely typed JMAP responses.
    files: ['test/**/*.ts', 'sandbox/test/**/*.ts'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
