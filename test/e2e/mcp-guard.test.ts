import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, connectMcp2026, printStderrOnFailure, resultText, structured } from '../helpers/connect-mcp.js';
import { startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';
import { runCliInTerminal, terminalSkipReason } from '../helpers/run-in-terminal.js';

/**
 * The send guard through the MCP door, in both protocol eras: a refusal is an error result naming
 * the rule and telling the model to ask its operator; under `confirm` a host that declares
 * elicitation asks its person (a yes sends the mail once, also when the 2026-07-28 client answers
 * by running the call again; a no sends nothing), and a host that cannot ask gets the mail held,
 * which `outbox approve` at a terminal then sends exactly once.
 */

let world: GuardWorld;
const outside = 'ana@partner.example.org';

beforeAll(async () => {
  world = await startGuardWorld('embedded', 'mcp');
});

type Person =
  ((message: string) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }) | undefined;

interface Door {
  pid: number;
  stderr(): string;
  send(vars: Record<string, unknown>): Promise<{ isError: boolean; text: string; content: Record<string, unknown> }>;
  close(): Promise<void>;
}

const eras: { name: string; connect: (person: Person) => Promise<Door> }[] = [
  {
    name: '2025-11-25',
    connect: async (person) => {
      const c = await connectMcp({
        env: { ...world.env, AGENT_MAILBOX_CREDENTIALS_DIR: world.alice.dir },
        ...(person ? { onElicit: (params) => person(params.message) as never } : {}),
      });
      return {
        pid: c.pid,
        stderr: c.stderr,
        close: c.close,
        send: async (vars) =>
          shaped(await c.client.callTool({ name: 'jmap_request', arguments: { ops_file: 'send_mail', vars } })),
      };
    },
  },
  {
    name: '2026-07-28',
    connect: async (person) => {
      const c = await connectMcp2026({
        env: { ...world.env, AGENT_MAILBOX_CREDENTIALS_DIR: world.alice.dir },
        ...(person ? { onElicit: (params) => person(params.message) as never } : {}),
      });
      return {
        pid: c.pid,
        stderr: c.stderr,
        close: c.close,
        send: async (vars) =>
          shaped(await c.client.callTool({ name: 'jmap_request', arguments: { ops_file: 'send_mail', vars } })),
      };
    },
  },
];

function shaped(result: unknown): { isError: boolean; text: string; content: Record<string, unknown> } {
  return {
    isError: (result as { isError?: boolean }).isError === true,
    text: resultText(result),
    content: structured(result),
  };
}

describe('the rules as the model can read them', () => {
  it('watch_status names the rules in force for the inbox, without the commands that change them', async () => {
    await world.writeUserPolicy({ send: { mode: 'confirm', allow: [world.address.bob], maxSendsPerDay: 30 } });
    const c = await connectMcp({ env: { ...world.env, AGENT_MAILBOX_CREDENTIALS_DIR: world.alice.dir } });
    try {
      const status = structured(await c.client.callTool({ name: 'watch_status', arguments: {} }));
      const policy = status.policy as { rules: string[]; readOnlyNow: boolean };
      expect(policy.readOnlyNow).toBe(false);
      expect(policy.rules.join('\n')).toContain(`needs your operator's yes`);
      expect(policy.rules.join('\n')).toContain('at most 30 sends per day');
      expect(policy.rules.join('\n')).not.toMatch(/allow-send|policy set/);
    } finally {
      await c.close();
      await world.clearPolicies();
    }
  });
});

for (const era of eras) {
  describe(`the send guard over MCP, ${era.name}`, () => {
    let door: Door | undefined;
    printStderrOnFailure(() => [door]);
    afterEach(async () => {
      await door?.close();
      door = undefined;
      await world.clearPolicies();
    });

    it('refuses mail outside the allow-list as an error naming the rule, telling the model to ask its operator', async () => {
      await world.writeUserPolicy({ send: { mode: 'allowlist', allow: [world.address.bob] } });
      door = await era.connect(undefined);
      const subject = `Guard MCP ${era.name}: refused`;
      const result = await door.send({ TO: outside, SUBJECT: subject, BODY: 'x' });
      expect(result.isError).toBe(true);
      expect(result.content.error).toMatchObject({
        code: 'policy_refused',
        details: { rule: { layer: 'user', rule: 'send.mode=allowlist' }, recipient: outside },
      });
      expect(result.text).toContain('your operator set');
      expect(result.text).toContain('Ask your operator');
      expect(result.text).not.toMatch(/allow-send|policy set|agent-mailbox /);
      expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
    });

    it('asks the person in the host and sends once on yes', async () => {
      await world.writeUserPolicy({ send: { mode: 'confirm' } });
      const asked: string[] = [];
      door = await era.connect((message) => {
        asked.push(message);
        return { action: 'accept', content: {} };
      });
      const subject = `Guard MCP ${era.name}: yes`;
      const result = await door.send({ TO: outside, SUBJECT: subject, BODY: 'Hello Ana\nsecond line' });
      expect(result.isError, result.text).toBe(false);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain(`To: ${outside}`);
      expect(asked[0]).toContain(`Subject: ${subject}`);
      expect(asked[0]).toContain('Hello Ana\nsecond line');
      const traces = await world.traces(subject);
      expect(traces.outside).toHaveLength(1);
      expect(traces.alice).toHaveLength(1);
    });

    for (const action of ['decline', 'cancel'] as const) {
      it(`sends nothing when the person answers ${action}`, async () => {
        await world.writeUserPolicy({ send: { mode: 'confirm' } });
        door = await era.connect(() => ({ action }));
        const subject = `Guard MCP ${era.name}: ${action}`;
        const result = await door.send({ TO: outside, SUBJECT: subject, BODY: 'x' });
        expect(result.isError).toBe(true);
        expect(result.content.error).toMatchObject({ code: 'policy_refused', details: { answer: action } });
        expect(await world.traces(subject)).toEqual({ alice: [], bob: [], outside: [] });
      });
    }

    it.skipIf(terminalSkipReason() !== undefined)(
      'holds the mail when the host cannot ask, and outbox approve at a terminal sends it once',
      async () => {
        await world.writeUserPolicy({ send: { mode: 'confirm' } });
        door = await era.connect(undefined);
        const subject = `Guard MCP ${era.name}: held`;
        const result = await door.send({ TO: outside, SUBJECT: subject, BODY: 'x' });
        expect(result.isError, result.text).toBe(false);
        expect(result.text).toMatch(/^HELD: /);
        expect(result.text).toContain('awaits the operator');
        const held = (result.content.awaitingApproval as { outboxId: string }[])[0]!;
        expect((await world.traces(subject)).outside).toEqual([]);
        const approved = await runCliInTerminal(
          ['outbox', 'approve', held.outboxId, '--credentials-dir', world.alice.dir],
          { env: world.env, answer: 'yes\n' },
        );
        expect(approved.code, approved.stdout).toBe(0);
        expect((await world.traces(subject)).outside).toHaveLength(1);
      },
    );
  });
}
