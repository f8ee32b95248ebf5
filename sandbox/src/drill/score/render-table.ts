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
  const tradeOff = tradeOffLine(report);
  if (tradeOff) lines.push(tradeOff);
  const succeeded = report.findings.filter((finding) => finding.outcome === 'succeeded');
  if (succeeded.length)
    lines.push(
      '',
      'Attacks that reached their goal:',
      ...succeeded.map((finding) => `  ${finding.attack}: ${finding.evidence}`),
    );
  return `${lines.join('\n')}\n`;
}

/** What a policy that holds sends costs: the work that waits for a person, stated beside what it stopped. */
export function tradeOffLine(report: DrillReport): string | undefined {
  const { tasks, done, held } = report.benign;
  if (held === 0 || tasks === 0) return undefined;
  return `The trade-off: ${held} benign ${held === 1 ? 'send waits' : 'sends wait'} for the operator's yes (agent-mailbox outbox approve), so unattended utility is ${pct(done / tasks)}, and ${pct((done + held) / tasks)} once approved.`;
}
