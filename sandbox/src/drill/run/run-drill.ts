import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxError } from '../../auth/sandbox-error.js';
import { parseClasses, writeReport, type DrillIo } from '../drill-io.js';
import { chooseDrillTarget, loadDrillTarget, type DrillTarget } from '../locate-sandbox.js';
import { scoreDrill } from '../score/score-drill.js';
import { seedDrill } from '../seed.js';
import { applyPolicy } from './drill-policies.js';
import { runObedientAgent } from './obedient-agent.js';

type Input = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** One POSIX sh word, for the prompt put into the agent's command line. */
function shWord(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Runs a CLI command of this installation against the sandbox; its output on failure. */
function runCli(
  io: DrillIo,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(io.nodePath, [io.cliPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** The user's agent, as the wake runs one: {prompt} replaced, under sh, killed at the time limit. */
function runAgentCommand(
  command: string,
  prompt: string,
  env: Record<string, string | undefined>,
  timeoutMs: number,
  io: DrillIo,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command.replaceAll('{prompt}', shWord(prompt))], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout.on('data', (chunk: Buffer) => io.stderr.write(chunk));
    child.stderr.on('data', (chunk: Buffer) => io.stderr.write(chunk));
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(kill, timeoutMs);
    io.signal.addEventListener('abort', kill, { once: true });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
}

/**
 * `drill run`: a fresh inbox, the policy, the seed, the agent, the score. The run is not a wake:
 * the drill measures what the agent does, so nothing is made read-only.
 */
export async function runDrill(input: Input, io: DrillIo): Promise<number> {
  chooseDrillTarget({ sandbox: text(input['sandbox']) }, io.env);
  const agent = text(input['agent']);
  const agentCommand = text(input['agent_command']);
  if ((agent === undefined) === (agentCommand === undefined))
    throw new SandboxError(
      'drill run needs exactly one agent: --agent idle|obedient or --agent-command CMD.',
      'For example: agent-mailbox drill run --sandbox DATA_DIR --agent obedient --policy recommended.',
    );
  const classes = parseClasses(input['classes']);
  const target = await loadDrillTarget({ sandbox: text(input['sandbox']) }, io.env);
  const runRoot =
    target.dataDir === undefined
      ? await mkdtemp(join(tmpdir(), 'agent-mailbox-drill-'))
      : join(target.dataDir, 'drill-runs');
  const runId = randomBytes(3).toString('hex');
  const runDir = join(runRoot, `run-${runId}`);
  const credentialsDir = join(runDir, 'inbox');
  await mkdir(runDir, { recursive: true, mode: 0o700 });

  // The drill inbox's own environment: the sandbox's settings, its credentials, a user config
  // directory of its own (XDG_CONFIG_HOME: the policy's user layer is the drill's, never the
  // operator's real one, and the agent's fresh inboxes start under it), and no crontab.
  const { AGENT_MAILBOX_CREDENTIALS_DIR: _unused, ...sandboxSettings } = target.clientEnv;
  const agentEnv: Record<string, string | undefined> = {
    PATH: io.env['PATH'],
    HOME: io.env['HOME'],
    ...sandboxSettings,
    AGENT_MAILBOX_CREDENTIALS_DIR: credentialsDir,
    XDG_CONFIG_HOME: join(runDir, 'config'),
    AGENT_MAILBOX_CRONTAB: io.env['AGENT_MAILBOX_CRONTAB'] ?? join(runDir, 'no-crontab'),
  };
  const username = `drill-${runId}`;
  const registered = await runCli(
    io,
    ['register', '--username', username, '--watch', 'on-demand', '--credentials-dir', credentialsDir],
    agentEnv,
  );
  if (registered.code !== 0)
    throw new SandboxError(
      `Registering the drill inbox failed: ${registered.output.trim().split('\n').slice(-3).join(' ')}`,
      'Check that the sandbox is running and answers (agent-mailbox sandbox --data-dir DATA_DIR).',
    );
  const policy = await applyPolicy(text(input['policy']) ?? 'open', {
    credentialsDir,
    userConfigDir: join(runDir, 'config', 'agent-mailbox'),
  });
  const drillTarget: DrillTarget = { ...target, credentialsDir };
  const agentLabel = agent ?? `command: ${agentCommand ?? ''}`;
  // The key stays in this process: the agent gets neither it nor a file holding it.
  const { record, summary } = await seedDrill(drillTarget, {
    classes,
    seed: typeof input['seed'] === 'number' ? input['seed'] : 1,
    labels: { agent: agentLabel, policy },
  });
  io.stderr.write(
    `drill ${record.drillId}: ${record.mails.length} mails seeded into ${record.inbox}; running the ${agent ?? 'given'} agent\n`,
  );

  const timeoutMs = 1000 * (typeof input['agent_timeout'] === 'number' ? input['agent_timeout'] : 600);
  if (agent === 'obedient') {
    const abort = AbortSignal.any([io.signal, AbortSignal.timeout(timeoutMs)]);
    await runObedientAgent({
      record,
      cliPath: io.cliPath,
      nodePath: io.nodePath,
      env: agentEnv,
      credentialsDir,
      spareDir: (index) => join(runDir, `spare-${index}`),
      signal: abort,
      log: (line) => io.stderr.write(`${line}\n`),
    });
  } else if (agentCommand !== undefined) {
    await runAgentCommand(agentCommand, record.prompt, { ...agentExtras(io.env), ...agentEnv }, timeoutMs, io);
  }
  // The loop bot answers asynchronously; let its last answers land before reading the state.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const report = await scoreDrill(drillTarget, record.drillId, { agent: agentLabel, policy }, summary.drillKey);
  await writeReport(report, input, io);
  return 0;
}

/** What a user's agent needs of the operator's environment beyond the drill's (its own keys, its terminal type). */
function agentExtras(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('AGENT_MAILBOX_')));
}
