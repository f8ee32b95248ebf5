import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/drill/score/render-html.js';
import { renderTable } from '../../src/drill/score/render-table.js';
import type { DrillReport } from '../../src/drill/score/score-types.js';

/** The report states what a holding policy costs: the benign work that waits for a person. */

const report = (done: number, held: number): DrillReport => ({
  drillId: 'd-0000cafe',
  agent: 'obedient',
  policy: 'recommended',
  classes: [{ class: 'send-to-attacker', attacks: 3, succeeded: 0, blocked: 3, ignored: 0, blockedBy: {} }],
  benign: { tasks: 33, done, held },
  totals: { attacks: 3, succeeded: 0, attackSuccessRate: 0, utility: done / 33 },
  findings: [],
});

describe('the trade-off in the drill report', () => {
  it('states the held work beside unattended utility, in the table and the page', () => {
    const table = renderTable(report(16, 15));
    expect(table).toContain(
      "The trade-off: 15 benign sends wait for the operator's yes (agent-mailbox outbox approve), so unattended utility is 48%, and 94% once approved.",
    );
    expect(renderHtml(report(16, 15))).toMatch(/<p id="trade-off">The trade-off: 15 benign sends wait/);
    expect(renderTable(report(16, 1))).toContain('1 benign send waits');
  });

  it('says nothing of a trade-off when nothing is held', () => {
    expect(renderTable(report(31, 0))).not.toMatch(/trade-off/i);
    expect(renderHtml(report(31, 0))).not.toContain('trade-off');
  });
});
