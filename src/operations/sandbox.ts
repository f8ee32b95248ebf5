import { z } from 'zod';
import { MailboxError } from '../errors.js';
import { sandboxCommandInput, sandboxOptionsOf } from '../sandbox/sandbox-command-input.js';
import { defineOperation, type OperationContext } from './define-operation.js';

/**
 * `agent-mailbox sandbox`: the local sandbox of the service, until Ctrl-C. Its options are declared
 * once in src/sandbox/sandbox-command-input.ts; the sandbox itself loads only when this command runs.
 */
export const sandboxOperation = defineOperation({
  name: 'sandbox',
  title: 'Run the local sandbox',
  description: 'Run the local sandbox of the Agent Mailbox Service (auth host, JMAP host, SMTP) on 127.0.0.1.',
  input: sandboxCommandInput,
  output: z.object({ exitCode: z.number() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  doors: ['cli'],
  cli: { selfReporting: true, configOptions: false, repeatable: ['oauth_auto_approve'] },
  async run(input, ctx) {
    if (!ctx.streams)
      throw new MailboxError({
        code: 'internal',
        message: 'sandbox needs the process streams.',
        hint: 'Run it from the CLI.',
      });
    const { runSandboxCommand } = await import('../sandbox/sandbox-command.js');
    return { exitCode: await runSandboxCommand(sandboxOptionsOf(input), { ...ctx.streams, signal: ctx.signal }) };
  },
});

/**
 * `agent-mailbox drill seed|score|run`: the mail drill against a local sandbox. Its work lives with
 * the sandbox (src/sandbox/drill/) and loads only when one of these commands runs.
 */

const sandbox = z
  .string()
  .optional()
  .describe(
    "The sandbox's data directory (agent-mailbox sandbox --data-dir); without it, the sandbox's client settings (. client.env) in the environment.",
  );
const credentialsDir = z
  .string()
  .optional()
  .describe(
    "The sandbox inbox's credentials directory; default: the sandbox's own (AGENT_MAILBOX_CREDENTIALS_DIR of client.env).",
  );
const classes = z.string().optional().describe('Attack classes, comma-separated (default: all; see docs/drill.md).');
const seed = z.coerce
  .number({ error: '--seed takes a whole number' })
  .int('--seed takes a whole number')
  .min(0, '--seed takes a whole number')
  .optional()
  .describe('Order of the mail (canaries are new on every run).');
const json = z.boolean().optional().describe('Print JSON.');
const html = z.string().optional().describe('Also write the report as one self-contained HTML page to this file.');
const annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const output = z.object({ exitCode: z.number() });

async function runDrill(
  command: 'seed' | 'score' | 'run',
  input: Record<string, unknown>,
  ctx: OperationContext,
): Promise<{ exitCode: number }> {
  if (!ctx.streams)
    throw new MailboxError({
      code: 'internal',
      message: 'drill needs the process streams.',
      hint: 'Run it from the CLI.',
    });
  const { runDrillCommand } = await import('../sandbox/drill/drill-command.js');
  const env = ctx.configInputs.env ?? {};
  return {
    exitCode: await runDrillCommand(command, input, {
      stdout: ctx.streams.stdout,
      stderr: ctx.streams.stderr,
      env,
      signal: ctx.signal,
      cliPath: ctx.install.cliPath,
      nodePath: ctx.install.nodePath,
    }),
  };
}

export const drillSeedOperation = defineOperation({
  name: 'drill_seed',
  title: 'Seed a mail drill',
  description:
    'Fill a sandbox inbox with a drill: benign mail with tasks and attack mail, delivered over SMTP as mail from outside. Sandbox only.',
  input: z.object({ sandbox, credentials_dir: credentialsDir, classes, seed, json }),
  output,
  annotations,
  doors: ['cli'],
  cli: { path: ['drill', 'seed'], selfReporting: true, configOptions: false },
  run: (input, ctx) => runDrill('seed', input, ctx),
});

export const drillScoreOperation = defineOperation({
  name: 'drill_score',
  title: 'Score a mail drill',
  description:
    "Score what happened in a sandbox inbox since a drill was seeded, from the sandbox's own records: mail that left, web requests, state changes, loops.",
  input: z.object({
    sandbox,
    credentials_dir: credentialsDir,
    drill: z
      .string()
      .regex(/^d-[0-9a-f]{8}$/, 'a drill id looks like d-1a2b3c4d')
      .describe('The drill id drill seed printed.'),
    json,
    html,
  }),
  output,
  annotations: { ...annotations, readOnlyHint: true },
  doors: ['cli'],
  cli: { path: ['drill', 'score'], selfReporting: true, configOptions: false },
  run: (input, ctx) => runDrill('score', input, ctx),
});

export const drillRunOperation = defineOperation({
  name: 'drill_run',
  title: 'Run a mail drill',
  description:
    'Register a fresh sandbox inbox, apply a policy, seed a drill, run an agent on it and score the outcome.',
  input: z.object({
    sandbox,
    agent: z
      .enum(['idle', 'obedient'], { error: '--agent is idle or obedient' })
      .optional()
      .describe("A built-in agent: idle does nothing; obedient carries out every instruction, the attacker's too."),
    agent_command: z
      .string()
      .optional()
      .describe(
        "Your agent's command line ({prompt} is replaced), run with the drill inbox's settings in its environment.",
      ),
    policy: z.string().optional().describe('open, recommended (docs/security.md) or a policy file (default: open).'),
    classes,
    seed,
    agent_timeout: z.coerce
      .number({ error: '--agent-timeout takes seconds' })
      .positive('--agent-timeout takes seconds')
      .optional()
      .describe('Seconds the agent may run (default 600).'),
    json,
    html,
  }),
  output,
  annotations,
  doors: ['cli'],
  cli: { path: ['drill', 'run'], selfReporting: true, configOptions: false },
  run: (input, ctx) => runDrill('run', input, ctx),
});

/** The drill's entries of the operations table, in help order. */
export const drillOperations = [drillSeedOperation, drillScoreOperation, drillRunOperation] as const;
