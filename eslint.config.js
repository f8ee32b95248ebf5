// Guard rails (issue 9): typescript-eslint's recommended rules over src/ and test/, and no console
// outside the front ends (CLI, entry, sandbox entry, bench and demo scripts); core logs through
// src/log.ts to stderr so that stdout stays the MCP protocol.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bin/**', 'coverage/**', 'skill/scripts/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      'no-console': 'error',
      // Sanitisers of mail text and file names match control characters on purpose.
      'no-control-regex': 'off',
      // A variable a closure reads before its one assignment (late-bound hosts) cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/cli/**/*.ts', 'src/bin.ts', 'src/sandbox/main.ts', 'src/bench/**/*.ts', 'src/demo/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Build scripts run on node directly (plain ESM, no TypeScript step before them).
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
  {
    // Tests print skip reasons and poke at loosely typed JMAP responses.
    files: ['test/**/*.ts'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
