import { describe, expect, it } from 'vitest';
import { wordInputs } from '../../../src/render/describe-next.js';
import { Deadline } from '../../../src/gate/deadline.js';

/** A clock that moves only when the test moves it. */
function movableClock(): { now: () => number; advance(ms: number): void } {
  let t = 1_700_000_000_000;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('Deadline', () => {
  it('gives the whole call the configured timeout, not each request', () => {
    const clock = movableClock();
    const deadline = Deadline.start({ timeoutMs: 2000, now: clock.now });
    clock.advance(1500);
    expect(deadline.remainingMs()).toBe(500);
    clock.advance(800);
    expect(deadline.remainingMs()).toBe(0);
  });

  it("leaves waits the caller asked for off the timeout, and keeps the door's budget running through them", async () => {
    const clock = movableClock();
    const deadline = Deadline.start({ timeoutMs: 2000, budgetMs: 50_000, now: clock.now });
    clock.advance(500);
    await deadline.offTheClock(async () => {
      clock.advance(10_000);
      // Nested waits (a lock wait inside a proof of work) count once.
      await deadline.offTheClock(async () => clock.advance(5_000));
      expect(deadline.remainingMs()).toBe(1500);
    });
    expect(deadline.spentMs()).toBe(500);
    expect(deadline.budgetLeftMs()).toBe(34_500);
    clock.advance(1000);
    expect(deadline.remainingMs()).toBe(500);
  });

  it("ends at the door's budget when that comes first", () => {
    const clock = movableClock();
    const deadline = Deadline.start({ timeoutMs: 30_000, budgetMs: 8000, now: clock.now });
    clock.advance(6000);
    expect(deadline.remainingMs()).toBe(2000);
    const error = deadline.expiredError('JMAP request', 'http://127.0.0.1:9/jmap/?x=secret', true);
    expect(error.code).toBe('timeout');
    expect(error.message).toBe(
      "JMAP request: no complete answer from http://127.0.0.1:9 within 8000 ms, the time one tool call may take here (the MCP server's --tool-deadline-ms); the call waited 6000 ms in all.",
    );
    expect(error.hint).toMatch(/not resent/);
  });

  it('names the host, the timeout and the time waited in all when the timeout ends the call', () => {
    const clock = movableClock();
    const deadline = Deadline.start({ timeoutMs: 2000, now: clock.now });
    clock.advance(2004);
    const error = deadline.expiredError('JMAP session discovery', 'http://127.0.0.1:4567/.well-known/jmap', false);
    expect(wordInputs(error.message, 'cli')).toBe(
      'JMAP session discovery: no complete answer from http://127.0.0.1:4567 within 2000 ms, the time limit of the whole call (--timeout-ms / AGENT_MAILBOX_TIMEOUT_MS); the call waited 2004 ms for the service in all.',
    );
    expect(wordInputs(error.hint, 'cli')).toMatch(/raise --timeout-ms/);
    // An agent over MCP cannot pass a flag: it is told the server's setting, which its operator sets.
    expect(wordInputs(error.hint, 'mcp')).toMatch(
      /raise the MCP server's AGENT_MAILBOX_TIMEOUT_MS \(set in the host's config by your operator\)/,
    );
    expect(wordInputs(`${error.message} ${error.hint}`, 'mcp')).not.toMatch(/--/);
  });

  it("keeps the call's timeout and drops the budget for work that outlives the call", async () => {
    const clock = movableClock();
    const deadline = Deadline.start({ timeoutMs: 30_000, budgetMs: 1000, now: clock.now });
    const worker = deadline.withoutBudget();
    await worker.offTheClock(async () => clock.advance(60_000));
    expect(deadline.remainingMs()).toBe(0);
    expect(worker.remainingMs()).toBe(30_000);
    expect(worker.budgetLeftMs()).toBeUndefined();
  });

  it('starts a fresh clock for each run of a long-lived command', () => {
    const clock = movableClock();
    const deadline = Deadline.start({ timeoutMs: 2000, now: clock.now });
    clock.advance(5000);
    const next = deadline.restarted();
    expect(deadline.remainingMs()).toBe(0);
    expect(next.remainingMs()).toBe(2000);
  });

  it('keeps a wait off the clock until the outermost one ends, and runs later waits off it too', async () => {
    const clock = movableClock();
    const deadline = Deadline.start({ timeoutMs: 2000, now: clock.now });
    await deadline.offTheClock(async () => {
      await deadline.offTheClock(async () => clock.advance(1000));
      clock.advance(3000);
      expect(deadline.spentMs()).toBe(0);
    });
    await deadline.offTheClock(async () => clock.advance(7000));
    clock.advance(100);
    expect(deadline.spentMs()).toBe(100);
    expect(deadline.remainingMs()).toBe(1900);
  });

  it("keeps the door's budget in each fresh run of a long-lived command", () => {
    const clock = movableClock();
    const deadline = Deadline.start({ timeoutMs: 2000, budgetMs: 9000, now: clock.now });
    clock.advance(5000);
    expect(deadline.restarted().budgetLeftMs()).toBe(9000);
  });

  it('blames the timeout when it ends first though a budget is set, and the budget when both end together', () => {
    const clock = movableClock();
    const deadline = Deadline.start({ timeoutMs: 1000, budgetMs: 60_000, now: clock.now });
    clock.advance(1000);
    const timeout = deadline.expiredError('GET /x', 'http://127.0.0.1:9/x', false);
    expect(wordInputs(timeout.message, 'cli')).toContain(
      'within 1000 ms, the time limit of the whole call (--timeout-ms',
    );
    expect(timeout.details).toEqual({ host: 'http://127.0.0.1:9', timeoutMs: 1000, waitedMs: 1000 });

    const even = Deadline.start({ timeoutMs: 3000, budgetMs: 3000, now: clock.now });
    clock.advance(3000);
    const budget = even.expiredError('GET /x', 'http://127.0.0.1:9/x', false);
    expect(budget.message).toContain('within 3000 ms, the time one tool call may take here');
    expect(budget.details).toEqual({ host: 'http://127.0.0.1:9', budgetMs: 3000, waitedMs: 3000 });
    expect(budget.hint).toBe(
      'Call again: the host cuts a tool call at about a minute, and the service did not answer in that time.',
    );
  });

  it('blames the budget when waits off the clock used it up', async () => {
    const clock = movableClock();
    const deadline = Deadline.start({ timeoutMs: 2000, budgetMs: 5000, now: clock.now });
    await deadline.offTheClock(async () => clock.advance(4500));
    clock.advance(600);
    expect(deadline.expiredError('GET /x', 'http://127.0.0.1:9/x', false).details).toMatchObject({
      budgetMs: 5000,
      waitedMs: 5100,
    });
  });

  it('runs on the real clock unless given one', async () => {
    const deadline = Deadline.start({ timeoutMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(deadline.elapsedMs()).toBeGreaterThanOrEqual(20);
    expect(deadline.remainingMs()).toBeLessThanOrEqual(60_000 - 20);
    expect(deadline.remainingMs()).toBeGreaterThan(50_000);
  });

  it('never tells a negative budget left, and counts a wait that failed as off the clock', async () => {
    const clock = movableClock();
    const deadline = Deadline.start({ timeoutMs: 2000, budgetMs: 1000, now: clock.now });
    clock.advance(1500);
    expect(deadline.budgetLeftMs()).toBe(0);
    const fresh = Deadline.start({ timeoutMs: 2000, now: clock.now });
    await expect(
      fresh.offTheClock(async () => {
        clock.advance(4000);
        throw new Error('the lock wait failed');
      }),
    ).rejects.toThrow('the lock wait failed');
    clock.advance(300);
    expect(fresh.spentMs()).toBe(300);
  });

  it('hands the cause on whichever limit ended the call', () => {
    const clock = movableClock();
    const cause = new Error('aborted');
    const timeout = Deadline.start({ timeoutMs: 1000, now: clock.now });
    const budget = Deadline.start({ timeoutMs: 9000, budgetMs: 1000, now: clock.now });
    clock.advance(1000);
    expect(timeout.expiredError('GET /x', 'http://127.0.0.1:9/x', false, cause).cause).toBe(cause);
    const fromBudget = budget.expiredError('GET /x', 'http://127.0.0.1:9/x', false, cause);
    expect(fromBudget.details).toMatchObject({ budgetMs: 1000 });
    expect(fromBudget.cause).toBe(cause);
  });
});
