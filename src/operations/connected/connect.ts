import { resolve } from 'node:path';
import * as z from 'zod';
import { oauthScopes } from '../../wire-constants.js';
import { commandConfig, defineLazyOperation, optionalSwitch, optionalText } from '../define-operation.js';
import { loadHandlers } from '../handlers/load.js';

const scopeChoices = { read: oauthScopes.read, 'read,send': `${oauthScopes.read} ${oauthScopes.send}` } as const;

export const connectOperation = defineLazyOperation({
  name: 'connect',
  title: "Connect a person's account",
  description:
    "Connect a person's Agent Mailbox account (their inboxes, custom domains included) through the service's sign-in and consent page in a browser, and store the grant in a credentials directory of its own. Read-only (--scope read) is recommended: the service itself then refuses every send.",
  schemas: () => ({
    input: z.object({
      scope: z
        .enum(['read', 'read,send'], {
          error: 'scope must be "read" (recommended: the service refuses every send) or "read,send"',
        })
        .optional()
        .describe(
          'What the person is asked to grant: "read" (mail.read; recommended, the service itself refuses every send) or "read,send" (also mail.send). Default: read.',
        ),
      credentials_dir: optionalText(
        'Directory of its own for the connection (never one holding a registered inbox). Default: AGENT_MAILBOX_CREDENTIALS_DIR, then the per-user config dir.',
      ),
      resource: optionalText('The resource the tokens are for (RFC 8707). Default: {api_url}/jmap exactly.'),
      browser: optionalSwitch('--no-browser: do not open a browser; print the sign-in link on stderr instead.'),
      login_hint: z.string().max(200).optional().describe('Who is expected to sign in, passed on to the sign-in page.'),
      wait_seconds: z
        .number()
        .int()
        .min(10)
        .max(3600)
        .optional()
        .describe('How long to wait for the person to sign in and approve (default 600).'),
    }),
    output: z.looseObject({
      credentialsDir: z.string(),
      scope: z.string(),
      inboxes: z.array(z.looseObject({ address: z.string(), accountId: z.string() })),
      next: z.array(z.string()),
    }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  doors: ['cli'],
  cli: { flagNames: { browser: '--no-browser' }, hidden: ['wait_seconds'] },
  async run(input, ctx) {
    const config = commandConfig(ctx, input);
    // Its inboxes are new inboxes to the operator's rules (refused during a wake and under newInboxes=off),
    // before any browser opens; connecting over a connection too: whoever signs in may be another person.
    const dir = resolve(config.credentialsDir);
    const { assertNewInboxAllowed, assertNoWakeRunning } = await loadHandlers();
    await assertNoWakeRunning(config.userConfigDir, 'connect');
    await assertNewInboxAllowed({ userConfigDir: config.userConfigDir, credentialsDir: dir, action: 'connect' });
    const stderr = ctx.streams?.stderr;
    // The OAuth client loads only when connect runs, not on every start of the CLI.
    const { connectGrant, browserOpener } = await import('../../auth/oauth/grant-flows.js');
    const outcome = await connectGrant({
      dir,
      config,
      scope: scopeChoices[input.scope ?? 'read'],
      resource: input.resource ?? `${config.apiUrl}/jmap`,
      ...(input.login_hint !== undefined ? { loginHint: input.login_hint } : {}),
      ...(input.browser === false ? {} : { openBrowser: browserOpener(ctx.configInputs.env ?? {}) }),
      announce: (line) => (stderr ? stderr.write(`${line}\n`) : ctx.log.warn(line)),
      waitMs: (input.wait_seconds ?? 600) * 1000,
      signal: ctx.signal,
      deadline: ctx.deadline,
      log: ctx.log,
    });
    return { ...outcome };
  },
});
