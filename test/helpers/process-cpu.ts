import { readFile } from 'node:fs/promises';
import { pollUntil } from '../../sandbox/test/helpers/sandbox.js';

/** CPU seconds (user + system) the process has used so far, from /proc (Linux). */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of proc(5) (utime, stime), counted after the ")" that ends the command name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Cores the process keeps busy over the next `windowMs`. */
export async function busyCores(pid: number, windowMs: number): Promise<number> {
  const before = await cpuSeconds(pid);
  const started = Date.now();
  await pollUntil(() => (Date.now() - started >= windowMs ? true : undefined), windowMs + 1_000, 'measurement window');
  const after = await cpuSeconds(pid);
  return (after - before) / ((Date.now() - started) / 1000);
}
