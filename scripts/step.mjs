#!/usr/bin/env node
// Runs one named step of a longer command (`npm test`, `npm pack`, the bundle builds) and says so on
// stderr when it starts and ends, so a minute of silence always has a name:
//
//   node scripts/step.mjs <name> <command> [args...]
//
// The step's own output passes through; its exit code is this script's.
import { spawn } from 'node:child_process';

const [name, command, ...args] = process.argv.slice(2);
if (!name || !command) {
  process.stderr.write('usage: node scripts/step.mjs <name> <command> [args...]\n');
  process.exit(2);
}
const started = Date.now();
process.stderr.write(`\n▶ ${name}: ${[command, ...args].join(' ')}\n`);
// npm and npx are batch files on Windows: only a shell starts them there.
const child = spawn(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
child.on('error', (error) => {
  process.stderr.write(`✖ ${name}: ${error.message}\n`);
  process.exit(1);
});
child.on('close', (code, signal) => {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const exit = code ?? 1;
  process.stderr.write(
    exit === 0 ? `✔ ${name} (${seconds} s)\n` : `✖ ${name} failed (${signal ?? `exit ${exit}`}, ${seconds} s)\n`,
  );
  process.exit(exit);
});
