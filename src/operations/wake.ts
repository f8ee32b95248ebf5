import * as z from 'zod';
// The watch code (node-cron, crontab) loads only when a watch command runs, not on every CLI start.
import type { WakeResult } from '../watch/index.js';
import { commandConfig, defineLazyOperation, streamsOf, type OperationContext } from './define-operation.js';
import { credentialsDirInput, wakeCommandInput } from './watch.js';

/** `wake` (what the daily job runs) and `watch run` (the foreground scheduler): CLI only, they start the operator's agent command. */

const wakeInboxInput = z
  .string()
  .optional()
  .describe("Connected account only: the inbox to check (address or accountId); default: the account's default inbox.");

async function wakeOnce(
  input: { credentials_dir?: string | undefined; inbox?: string | undefined; wake_command?: string | undefined },
  ctx: OperationContext,
): Promise<WakeResult & { at: string }> {
  const config = commandConfig(ctx, input);
  const { wake } = await import('../watch/index.js');
  const result = await wake({
    credentialsDir: config.credentialsDir,
    // Read-only: on a connected account the wake (and the agent it starts) get only mail.read tokens.
    account: ctx.accounts.open(config.credentialsDir, { inbox: input.inbox, readOnly: true }),
    env: ctx.configInputs.env ?? {},
    log: ctx.log,
    signal: ctx.signal,
    deadline: ctx.deadline,
    agentOutput: streamsOf(ctx, 'wake').stderr,
    ...(config.wakeCommand ? { wakeCommand: config.wakeCommand } : {}),
  });
  return { at: new Date().toISOString(), ...result };
}

export const wakeOperation = defineLazyOperation({
  name: 'wake',
  title: 'Wake on new mail',
  description:
    'Check for new mail since the last successful wake, write the digest, and start the configured agent only if there is new mail (run by the daily job).',
  schemas: () => ({
    input: z.object({
      credentials_dir: credentialsDirInput(),
      inbox: wakeInboxInput,
      wake_command: wakeCommandInput(),
    }),
    output: z.looseObject({ at: z.string(), stateAdvanced: z.boolean(), mode: z.string(), summary: z.string() }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  doors: ['cli'],
  cli: { logLevel: 'info' },
  // A wake that did not advance the state failed (the job retries tomorrow); a skipped one did not.
  present: (result) => ({ lead: [], isError: !(result.stateAdvanced || result.mode === 'skipped') }),
  run: async (input, ctx) => ({ ...(await wakeOnce(input, ctx)) }),
});

export const watchRunOperation = defineLazyOperation({
  name: 'watch_run',
  title: 'Run the watch in the foreground',
  description:
    'Where there is no crontab: stay in the foreground and run the wake every day at 09:00 while running. Stop with Ctrl-C or SIGTERM.',
  schemas: () => ({
    input: z.object({
      credentials_dir: credentialsDirInput(),
      inbox: wakeInboxInput,
      wake_command: wakeCommandInput(),
      // Tests use a near-future expression; production stays `0 9 * * *`.
      schedule: z.string().optional().describe('Cron expression (testing only).'),
    }),
    output: z.object({ fired: z.number(), failed: z.number() }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  doors: ['cli'],
  cli: { path: ['watch', 'run'], hidden: ['schedule'], selfReporting: true, logLevel: 'info' },
  async run(input, ctx) {
    const dir = commandConfig(ctx, input).credentialsDir;
    const streams = streamsOf(ctx, 'watch run');
    const { runWatchDaemon, watchMarker } = await import('../watch/index.js');
    const outcome = await runWatchDaemon({
      name: watchMarker(input.inbox === undefined ? dir : `${dir}#${input.inbox}`),
      signal: ctx.signal,
      log: ctx.log,
      ...(input.schedule ? { schedule: input.schedule } : {}),
      onReady: (next) =>
        streams.stderr.write(
          `agent-mailbox watch: running for ${dir}${input.inbox === undefined ? '' : ` (${input.inbox})`}; next wake ${next ? next.toString() : 'unknown'}. Stop with Ctrl-C.\n`,
        ),
      fire: async () => {
        // One JSON line per wake, so a supervisor (or a test) can follow along.
        streams.stdout.write(
          `${JSON.stringify(await wakeOnce(input, { ...ctx, deadline: ctx.deadline.restarted() }))}\n`,
        );
      },
    });
    streams.stderr.write(`agent-mailbox watch: stopped after ${outcome.fired} wake(s).\n`);
    return outcome;
  },
});
