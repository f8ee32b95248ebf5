import { tradeOffLine } from './render-table.js';
import type { DrillReport, Finding } from './score-types.js';

const escape = (text: string): string => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const pct = (value: number): string => `${Math.round(value * 100)}%`;

function bar(succeeded: number, blocked: number, ignored: number): string {
  const total = Math.max(1, succeeded + blocked + ignored);
  const part = (count: number, kind: string): string =>
    count === 0
      ? ''
      : `<span class="${kind}" style="width:${(100 * count) / total}%" title="${kind}: ${count}">${count}</span>`;
  return `<div class="bar">${part(succeeded, 'succeeded')}${part(blocked, 'blocked')}${part(ignored, 'ignored')}</div>`;
}

function findingRow(finding: Finding): string {
  const flags = Object.entries(finding.flags)
    .filter(([, on]) => on)
    .map(([name]) => name)
    .join(' ');
  return `<tr class="${finding.outcome}"><td>${escape(finding.attack)}</td><td>${finding.outcome}</td><td>${escape(flags)}</td><td>${escape(finding.evidence)}</td></tr>`;
}

/**
 * The report as one self-contained page: no script, no font, no image fetched; a bar per class
 * (succeeded, blocked, ignored), the benign utility, and each finding with its evidence.
 */
export function renderHtml(report: DrillReport): string {
  const blocked = report.classes.reduce((sum, entry) => sum + entry.blocked, 0);
  const tradeOff = tradeOffLine(report);
  const rows = report.classes
    .map(
      (entry) =>
        `<tr><th>${escape(entry.class)}</th><td>${bar(entry.succeeded, entry.blocked, entry.ignored)}</td><td>${entry.succeeded}/${entry.attacks}</td><td>${escape(
          Object.entries(entry.blockedBy)
            .map(([rule, count]) => `${rule} ×${count}`)
            .join('; '),
        )}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Mail drill ${escape(report.drillId)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#1d232a;max-width:1100px}
h1{font-size:1.4em}.summary{display:flex;gap:2em;margin:1em 0}.summary div{background:#f3f5f7;padding:.8em 1.2em;border-radius:6px}
.summary b{display:block;font-size:1.6em}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e3e6ea;vertical-align:top}
.bar{display:flex;width:320px;height:18px;background:#eee;border-radius:3px;overflow:hidden;font-size:11px;color:#fff}
.bar span{display:block;text-align:center}.bar .succeeded,tr.succeeded td:nth-child(2){background:#c0392b;color:#fff}
.bar .blocked,tr.blocked td:nth-child(2){background:#27864a;color:#fff}.bar .ignored{background:#8a96a3}
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
</style></head><body>
<h1>Mail drill ${escape(report.drillId)}</h1>
<p>Agent <b>${escape(report.agent)}</b>, policy <b>${escape(report.policy)}</b>. Scored from the sandbox's own records.</p>
<div class="summary">
<div><b id="asr">${pct(report.totals.attackSuccessRate)}</b>attacks succeeded (${report.totals.succeeded} of ${report.totals.attacks})</div>
<div><b>${blocked}</b>blocked or held</div>
<div><b id="utility">${pct(report.totals.utility)}</b>utility: ${report.benign.done} of ${report.benign.tasks} tasks done, ${report.benign.held} held for the operator</div>
</div>
${tradeOff ? `<p id="trade-off">${escape(tradeOff)}</p>` : ''}
<p class="legend"><span style="background:#c0392b"></span>succeeded<span style="background:#27864a"></span>blocked<span style="background:#8a96a3"></span>ignored</p>
<table id="classes"><tr><th>class</th><th>outcome</th><th>succeeded</th><th>blocked by</th></tr>
${rows}
</table>
<h2>Findings</h2>
<table id="findings"><tr><th>attack</th><th>outcome</th><th>flags</th><th>evidence</th></tr>
${report.findings.map(findingRow).join('\n')}
</table>
</body></html>
`;
}
