import * as z from 'zod';
import { flagsOf, sandboxCommandInput, wholeNumber } from '../sandbox-bin/sandbox-flags.js';
import {
  defineLazyOperation,
  optionalSwitch,
  optionalText,
  streamsOf,
  type OperationContext,
} from './define-operation.js';
import { loadHandlers } from './handlers/load.js';

/** Runs the sandbox package's bin (found at run time; the client never imports it) with these arguments. */
async function runSandboxPackage(args: string[], ctx: OperationContext, what: string): Promise<{ exitCode: number }> {
  const streams = streamsOf(ctx, what);
  const env = ctx.configInputs.env ?? {};
  const { findSandboxBin, runSandboxBin } = await loadHandlers();
  const run = { bin: findSandboxBin({ env }), nodePath: ctx.install.nodePath, args, env, signal: ctx.signal };
  return { exitCode: await runSandboxBin({ ...run, stdout: streams.stdout, stderr: streams.stderr }) };
}

const annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export const sandboxOperation = defineLazyOperation({
  name: 'sandbox',
  title: 'Run the local sandbox',
  description: 'Run the local sandbox of the Agent Mailbox Service (auth host, JMAP host, SMTP) on 127.0.0.1.',
  schemas: () => ({
    input: sandboxCommandInput(),
    output: z.object({ exitCode: z.number() }),
  }),
  annotations,
  doors: ['cli'],
  cli: { selfReporting: true, configOptions: false, repeatable: ['oauth_auto_approve'] },
  run: (input, ctx) => runSandboxPackage(flagsOf(input), ctx, 'sandbox'),
});

/** `drill seed|score|run`: the sandbox bin's `drill`; `drill run` gives it this CLI to run the agents with. */
// Their shared inputs, built with an entry's schemas (not at every start).
const lazyText = (describe: string) => () => optionalText(describe);
const sandbox = lazyText(
  "The sandbox's data directory (agent-mailbox sandbox --data-dir); without it, the sandbox's client settings (. client.env) in the environment.",
);
const credentialsDir = lazyText(
  "The sandbox inbox's credentials directory; default: the sandbox's own (AGENT_MAILBOX_CREDENTIALS_DIR of client.env).",
);
const classes = lazyText('Attack classes, comma-separated (default: all; see docs/drill.md).');
const seed = () => wholeNumber('--seed').describe('Order of the mail (canaries are new on every run).');
const json = () => optionalSwitch('Print JSON.');
const html = lazyText('Also write the report as one self-contained HTML page to this file.');

function drillCommand<I extends z.ZodObject>(
  command: 'seed' | 'score' | 'run',
  entry: { title: string; description: string; input: () => I; readOnly?: boolean },
) {
  return defineLazyOperation({
    name: `drill_${command}`,
    title: entry.title,
    description: entry.description,
    schemas: () => ({ input: entry.input(), output: z.object({ exitCode: z.number() }) }),
    annotations: { ...annotations, readOnlyHint: entry.readOnly === true },
    doors: ['cli'],
    cli: { path: ['drill', command], selfReporting: true, configOptions: false },
    run: (input, ctx) =>
      runSandboxPackage(
        ['drill', command, ...flagsOf(input), '--client-cli', ctx.install.cliPath],
        ctx,
        `drill ${command}`,
      ),
  });
}

/** The drill's entries of the operations table, in help order. */
export const drillOperations = [
  drillCommand('seed', {
    title: 'Seed a mail drill',
    description:
      'Fill a sandbox inbox with a drill: benign mail with tasks and attack mail, delivered over SMTP as mail from outside. Sandbox only.',
    input: () =>
      z.object({
        sandbox: sandbox(),
        credentials_dir: credentialsDir(),
        classes: classes(),
        seed: seed(),
        json: json(),
      }),
  }),
  drillCommand('score', {
    title: 'Score a mail drill',
    description:
      "Score what happened in a sandbox inbox since a drill was seeded, from the sandbox's own records: mail that left, web requests, state changes, loops.",
    input: () =>
      z.object({
        sandbox: sandbox(),
        credentials_dir: credentialsDir(),
        drill: z
          .string()
          .regex(/^d-[0-9a-f]{8}$/, 'a drill id looks like d-1a2b3c4d')
          .describe('The drill id drill seed printed.'),
        json: json(),
        html: html(),
      }),
    readOnly: true,
  }),
  drillCommand('run', {
    title: 'Run a mail drill',
    description:
      'Register a fresh sandbox inbox, apply a policy, seed a drill, run an agent on it and score the outcome.',
    input: () =>
      z.object({
        sandbox: sandbox(),
        agent: z
          .enum(['idle', 'obedient'], { error: '--agent is idle or obedient' })
          .optional()
          .describe("A built-in agent: idle does nothing; obedient carries out every instruction, the attacker's too."),
        agent_command: optionalText(
          "Your agent's command line ({prompt} is replaced), run with the drill inbox's settings in its environment.",
        ),
        policy: optionalText('open, recommended (docs/security.md) or a policy file (default: open).'),
        classes: classes(),
        seed: seed(),
        agent_timeout: z.coerce
          .number({ error: '--agent-timeout takes seconds' })
          .positive('--agent-timeout takes seconds')
          .optional()
          .describe('Seconds the agent may run (default 600).'),
        json: json(),
        html: html(),
      }),
  }),
];
