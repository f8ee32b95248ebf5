// Guard rails: typescript-eslint's recommended rules over src/ and test/; no console outside the
// front ends (CLI, entry, sandbox entry, bench and demo scripts), because core logs through
// src/log.ts to stderr and stdout stays the MCP protocol; and no import cycle at run time.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Fixtures that break a rule on purpose; test/unit/architecture/lint-rules.test.ts lints them itself. */
export const ruleFixtures = 'test/fixtures/lint/**';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bin/**', 'coverage/**', 'skill/scripts/*.mjs', ruleFixtures] },
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
    files: ['src/cli/**/*.ts', 'src/bin.ts', 'src/sandbox/main.ts', 'src/bench/**/*.ts', 'src/demo/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Build scripts run on node directly (plain ESM, no TypeScript step before them).
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly' } },
  },
  {
    // Tests print skip reasons and poke at loosely typed JMAP responses.
    files: ['test/**/*.ts'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
