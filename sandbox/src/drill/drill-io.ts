import { writeFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { SandboxError } from '../auth/sandbox-error.js';
import { allClasses } from './scenarios/scenario-build.js';
import type { DrillReport } from './score/score-types.js';

/** What the drill commands share: their streams and environment, --classes, the report's output. */
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
export const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** --classes as a list of known classes; an unknown name is refused with the list. */
export function parseClasses(value: unknown): string[] {
  const raw = text(value);
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'all') return [...allClasses];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !allClasses.includes(name));
  if (unknown.length)
    throw new SandboxError(`Unknown attack class: ${unknown.join(', ')}.`, `Pick from: ${allClasses.join(', ')}.`);
  return names;
}

/** The report on stdout (JSON or a table) and, with --html, as a page. */
export async function writeReport(report: DrillReport, input: Input, io: Pick<DrillIo, 'stdout'>): Promise<void> {
  const { renderTable } = await import('./score/render-table.js');
  const html = text(input['html']);
  if (html !== undefined) {
    const { renderHtml } = await import('./score/render-html.js');
    await writeFile(html, renderHtml(report));
  }
  io.stdout.write(input['json'] === true ? `${JSON.stringify(report)}\n` : renderTable(report));
}
