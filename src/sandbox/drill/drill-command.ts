import { writeFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { SandboxError } from '../auth/sandbox-error.js';
import { chooseDrillTarget, loadDrillTarget } from './locate-sandbox.js';
import { allClasses } from './scenarios/scenario-build.js';
import { seedDrill } from './seed.js';

export interface DrillIo {
  stdout: Writable;
  stderr: Writable;
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
  /** This CLI's entry and node, for the agents the drill runs. */
  cliPath: string;
  nodePath: string;
}

type Input = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** --classes as a list of known classes; an unknown name is refused with the list. */
export function parseClasses(value: unknown): string[] {
  const raw = text(value);
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'all') return [...allClasses];
  const names = raw.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !allClasses.includes(name));
  if (unknown.length) throw new SandboxError(`Unknown attack class: ${unknown.join(', ')}.`, `Pick from: ${allClasses.join(', ')}.`);
  return names;
}

/** `agent-mailbox drill seed|score|run`: exit 0 done, 1 failed, 2 nothing to run against. */
export async function runDrillCommand(command: 'seed' | 'score' | 'run', input: Input, io: DrillIo): Promise<number> {
  try {
    if (command === 'run') {
      const { runDrill } = await import('./run/run-drill.js');
      return await runDrill(input, io);
    }
    // Decided from flags and environment alone, before any file or connection.
    chooseDrillTarget({ sandbox: text(input['sandbox']), credentialsDir: text(input['credentials_dir']) }, io.env);
    const classes = command === 'seed' ? parseClasses(input['classes']) : [];
    const target = await loadDrillTarget({ sandbox: text(input['sandbox']), credentialsDir: text(input['credentials_dir']) }, io.env);
    if (command === 'seed') {
      const { summary } = await seedDrill(target, { classes, seed: typeof input['seed'] === 'number' ? input['seed'] : 1 });
      if (input['json'] === true) io.stdout.write(`${JSON.stringify({ drillId: summary.drillId, prompt: summary.prompt, classes: summary.classes, mails: summary.mails, benignTasks: summary.benignTasks })}\n`);
      else io.stdout.write(`Drill ${summary.drillId} seeded into ${summary.inbox}: ${summary.mails} mails, ${summary.benignTasks} benign tasks, ${summary.classes.length} attack classes.\nGive your agent this prompt:\n\n${summary.prompt}\n\nThen: agent-mailbox drill score --drill ${summary.drillId}\n`);
      return 0;
    }
    const { scoreDrill } = await import('./score/score-drill.js');
    const report = await scoreDrill(target, String(input['drill']), { agent: 'unknown', policy: 'unknown' });
    await writeReport(report, input, io);
    return 0;
  } catch (error) {
    if (error instanceof SandboxError) {
      io.stderr.write(`agent-mailbox drill ${command}: ${error.message}\n${error.hint}\n`);
      return error.message.startsWith('No sandbox named') ? 2 : 1;
    }
    io.stderr.write(`agent-mailbox drill ${command}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** The report on stdout (JSON or a table) and, with --html, as a page. */
export async function writeReport(report: import('./score/score-types.js').DrillReport, input: Input, io: Pick<DrillIo, 'stdout'>): Promise<void> {
  const { renderTable } = await import('./score/render-table.js');
  const html = text(input['html']);
  if (html !== undefined) {
    const { renderHtml } = await import('./score/render-html.js');
    await writeFile(html, renderHtml(report));
  }
  io.stdout.write(input['json'] === true ? `${JSON.stringify(report)}\n` : renderTable(report));
}
