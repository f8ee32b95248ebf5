import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp, connectMcp2026, printStderrOnFailure, structured } from '../helpers/connect-mcp.js';
import { noCrontab } from '../helpers/run-cli.js';
import { pollUntil } from '../../sandbox/test/helpers/sandbox.js';

// The core's `confirm` through the MCP door in both protocol eras: form elicitation pushed as an
// `elicitation/create` request to a 2025-11-25 client, an `input_required` result answered by the
// retry of a 2026-07-28 client. No real tool asks yet, so the built server is started through a
// test entry that adds one (test/fixtures/confirm-probe-server.mjs explains why that is safe).
const probeServer = fileURLToPath(new URL('../fixtures/confirm-probe-server.mjs', import.meta.url));
const env = {
  AGENT_MAILBOX_AUTH_URL: 'http://127.0.0.1:9',
  AGENT_MAILBOX_API_URL: 'http://127.0.0.1:9',
  AGENT_MAILBOX_CREDENTIALS_DIR: '/nonexistent/agent-mailbox',
};

/** What a person answers in the host's form; undefined: the client declares no elicitation at all. */
type Person =
  | ((question: { message: string; requestedSchema: unknown }) => {
      action: 'accept' | 'decline' | 'cancel';
      content?: Record<string, unknown>;
    })
  | undefined;

const twoQuestions = { questions: 2 };

interface ProbeConnection {
  pid: number;
  stderr(): string;
  probe(args: Record<string, unknown>): Promise<{ answers: Record<string, unknown>[]; runs: number }>;
  close(): Promise<void>;
}

const eras: { name: string; legacy: boolean; connect: (person: Person) => Promise<ProbeConnection> }[] = [
  {
    name: '2025-11-25 (SDK 1.x client, elicitation/create request)',
    legacy: true,
    connect: async (person) => {
      const c = await connectMcp({
        env,
        nodeArgs: [probeServer],
        ...(person ? { onElicit: (params) => person(params as never) as never } : {}),
      });
      const probe = async (args: Record<string, unknown>) =>
        structured(await c.client.callTool({ name: 'confirm_probe', arguments: args })) as never;
      return { pid: c.pid, stderr: c.stderr, probe, close: c.close };
    },
  },
  {
    name: '2026-07-28 (SDK 2.x client, input_required and retry)',
    legacy: false,
    connect: async (person) => {
      const c = await connectMcp2026({
        env,
        nodeArgs: [probeServer],
        ...(person ? { onElicit: (params) => person(params as never) as never } : {}),
      });
      expect(c.client.getProtocolEra()).toBe('modern');
      const probe = async (args: Record<string, unknown>) =>
        structured(await c.client.callTool({ name: 'confirm_probe', arguments: args })) as never;
      return { pid: c.pid, stderr: c.stderr, probe, close: c.close };
    },
  },
];

for (const era of eras) {
  describe(`confirm over MCP, ${era.name}`, () => {
    let connection: ProbeConnection | undefined;
    printStderrOnFailure(() => [connection]);
    afterEach(async () => {
      await connection?.close();
      connection = undefined;
    });

    it('shows the person the question as a form and hands the operation the accepted fields, cut to the form', async () => {
      const questions: { message: string; requestedSchema: unknown }[] = [];
      connection = await era.connect((question) => {
        questions.push(question);
        return { action: 'accept', content: { confirm: true, priority: 'high', note: 'ok', smuggled: 'x' } };
      });
      const result = await connection.probe({ subject: 'Q3 numbers' });
      expect(result.answers).toEqual([{ action: 'accept', content: { confirm: true, priority: 'high', note: 'ok' } }]);
      expect(questions).toHaveLength(1);
      expect(questions[0]).toMatchObject({
        message: 'Send "Q3 numbers" (question 1)?',
        requestedSchema: {
          type: 'object',
          properties: {
            confirm: { type: 'boolean', title: 'Send it' },
            note: { type: 'string', title: 'Note for the log', maxLength: 40 },
            priority: { type: 'string', title: 'Priority', enum: ['low', 'high'] },
          },
          required: ['confirm'],
        },
      });
    });

    it('reports a decline as decline and a dismissed form as cancel', async () => {
      let answer: 'decline' | 'cancel' = 'decline';
      connection = await era.connect(() => ({ action: answer }));
      expect((await connection.probe({})).answers).toEqual([{ action: 'decline' }]);
      answer = 'cancel';
      expect((await connection.probe({})).answers).toEqual([{ action: 'cancel' }]);
    });

    it('never counts an accept whose content does not fit the form as a yes', async () => {
      const contents: Record<string, unknown>[] = [
        { confirm: 'yes' },
        { priority: 'high' },
        { confirm: true, priority: 'urgent' },
        { confirm: true, note: 'x'.repeat(41) },
      ];
      let next = 0;
      connection = await era.connect(() => ({ action: 'accept', content: contents[next++]! }));
      for (let i = 0; i < contents.length; i++)
        expect((await connection.probe({})).answers, JSON.stringify(contents[i])).toEqual([{ action: 'cancel' }]);
    });

    it('asks questions in a row one by one and keeps each answer with its question', async () => {
      const asked: string[] = [];
      connection = await era.connect((question) => {
        asked.push(question.message);
        return asked.length === 1 ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
      });
      const result = await connection.probe(twoQuestions);
      expect(asked).toEqual(['Send "the report" (question 1)?', 'Send "the report" (question 2)?']);
      expect(result.answers).toEqual([{ action: 'accept', content: { confirm: true } }, { action: 'decline' }]);
      // 2025: the call waits for each answer. 2026: the retry runs the operation again after each
      // answer, so everything before a confirm must be free of side effects.
      expect(result.runs).toBe(era.legacy ? 1 : 3);
    });

    it('answers unavailable, asking nobody, when the client declared no elicitation', async () => {
      connection = await era.connect(undefined);
      expect(await connection.probe({})).toEqual({ answers: [{ action: 'unavailable' }], runs: 1 });
    });
  });
}

describe('confirm over MCP 2025-11-25, when asking fails', () => {
  let connection: ProbeConnection | undefined;
  printStderrOnFailure(() => [connection]);
  afterEach(async () => {
    await connection?.close();
  });

  it('counts a question the client fails to ask as cancel, and says so in the log', async () => {
    connection = await eras[0]!.connect(() => {
      throw new Error('the form could not be shown');
    });
    expect((await connection.probe({})).answers).toEqual([{ action: 'cancel' }]);
    const logged = /a confirmation could not be asked \(counted as cancel\): .*the form could not be shown/;
    // stderr is a pipe of its own: the log line may arrive after the answer on stdout.
    const { stderr } = connection;
    await pollUntil(() => (logged.test(stderr()) ? true : undefined), 10_000).catch(() => undefined);
    expect(stderr()).toMatch(logged);
  });
});

/** The 2026-07-28 wire by hand: what the SDK client hides, and what a client must not be able to fake. */
describe('confirm over MCP 2026-07-28, on the wire', () => {
  let child: ChildProcessWithoutNullStreams | undefined;
  let stderr = '';
  printStderrOnFailure(() => (child?.pid ? [{ pid: child.pid, stderr: () => stderr }] : []));
  afterEach(() => {
    child?.stdin.end();
    child = undefined;
  });

  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };

  function start(): (params: Record<string, unknown>) => Promise<Record<string, unknown>> {
    stderr = '';
    const spawned = spawn(process.execPath, [probeServer], {
      env: { PATH: process.env.PATH, AGENT_MAILBOX_CRONTAB: noCrontab, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child = spawned;
    spawned.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const answers = new Map<number, Record<string, unknown>>();
    let buffer = '';
    spawned.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const message = JSON.parse(line) as { id?: number };
        if (typeof message.id === 'number') answers.set(message.id, message as Record<string, unknown>);
      }
    });
    let id = 0;
    return async (params) => {
      const mine = ++id;
      spawned.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: mine, method: 'tools/call', params: { name: 'confirm_probe', _meta: meta, ...params } })}\n`,
      );
      return pollUntil(() => answers.get(mine), 10_000, `the answer to request ${mine}`);
    };
  }

  it('returns input_required with the form and a signed state, and finishes on the retry that carries the answer', async () => {
    const call = start();
    const first = (await call({ arguments: { subject: 'wire' } })).result as Record<string, unknown>;
    expect(first).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        confirm_0: { method: 'elicitation/create', params: { mode: 'form', message: 'Send "wire" (question 1)?' } },
      },
    });
    expect(typeof first.requestState).toBe('string');
    const done = (
      await call({
        arguments: { subject: 'wire' },
        requestState: first.requestState,
        inputResponses: { confirm_0: { action: 'accept', content: { confirm: true } } },
      })
    ).result;
    expect(done).toMatchObject({ structuredContent: { answers: [{ action: 'accept', content: { confirm: true } }] } });
  });

  it('does not take an answer nobody asked for, one given to another call, or one under a forged state', async () => {
    const call = start();
    const yes = { confirm_0: { action: 'accept', content: { confirm: true } } };
    // Unsolicited: no state at all.
    expect((await call({ arguments: {}, inputResponses: yes })).result).toMatchObject({ resultType: 'input_required' });
    // A state minted for other arguments, though its first question reads the same.
    const other = (await call({ arguments: { questions: 2 } })).result as { requestState: string };
    expect((await call({ arguments: {}, requestState: other.requestState, inputResponses: yes })).result).toMatchObject(
      { resultType: 'input_required' },
    );
    // A state whose signature does not match its content.
    const mine = (await call({ arguments: {} })).result as { requestState: string };
    const forged = `${mine.requestState.slice(0, -4)}AAAA`;
    expect((await call({ arguments: {}, requestState: forged, inputResponses: yes })).result).toMatchObject({
      resultType: 'input_required',
    });
    // The genuine one still works.
    expect((await call({ arguments: {}, requestState: mine.requestState, inputResponses: yes })).result).toMatchObject({
      structuredContent: { answers: [{ action: 'accept', content: { confirm: true } }] },
    });
  });
});
