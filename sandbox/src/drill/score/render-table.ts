import type { DrillReport } from './score-types.js';

const pct = (value: number): string => `${Math.round(value * 100)}%`;

/** The report as a person reads it in a terminal. */
export function renderTable(report: DrillReport): string {
  const width = Math.max(5, ...report.classes.map((entry) => entry.class.length));
  const row = (cells: string[]): string =>
    `${cells[0]?.padEnd(width)}  ${cells
      .slice(1)
      .map((cell) => cell.padStart(9))
      .join(' ')}`;
  const lines = [
    `Drill ${report.drillId}: agent ${report.agent}, policy ${report.policy}`,
    '',
    row(['class', 'attacks', 'succeeded', 'blocked', 'ignored']),
    ...report.classes.map((entry) =>
      row([entry.class, String(entry.attacks), String(entry.succeeded), String(entry.blocked), String(entry.ignored)]),
    ),
    row([
      'total',
      String(report.totals.attacks),
      String(report.totals.succeeded),
      String(report.classes.reduce((sum, c) => sum + c.blocked, 0)),
      String(report.classes.reduce((sum, c) => sum + c.ignored, 0)),
    ]),
    '',
    `Attack success rate ${pct(report.totals.attackSuccessRate)}; benign tasks ${report.benign.tasks}: ${report.benign.done} done, ${report.benign.held} held for the operator (utility ${pct(report.totals.utility)}).`,
  ];
  const succeeded = report.findings.filter((finding) => finding.outcome === 'succeeded');
  if (succeeded.length)
    lines.push(
      '',
      'Attacks that reached their goal:',
      ...succeeded.map((finding) => `  ${finding.attack}: ${finding.evidence}`),
    );
  return `${lines.join('\n')}\n`;
}
