import { SandboxError } from '../auth/sandbox-error.js';
import { parseClasses, text, writeReport, type DrillIo } from './drill-io.js';
import { chooseDrillTarget, drillKeyFrom, drillKeyVariable, loadDrillTarget } from './locate-sandbox.js';
import { seedDrill } from './seed.js';

type Input = Record<string, unknown>;

/** `agent-mailbox drill seed|score|run`: exit 0 done, 1 failed, 2 nothing to run against. */
export async function runDrillCommand(command: 'seed' | 'score' | 'run', input: Input, io: DrillIo): Promise<number> {
  try {
    if (command === 'run') {
      const { runDrill } = await import('./run/run-drill.js');
      return await runDrill(input, io);
    }
    // Decided from flags and environment alone, before any file or connection.
    chooseDrillTarget({ sandbox: text(input['sandbox']), credentialsDir: text(input['credentials_dir']) }, io.env);
    const classes = command === 'seed' ? parseClasses(input['classes']) : [];
    const drillKey = command === 'score' ? drillKeyFrom(io.env, String(input['drill'])) : '';
    const target = await loadDrillTarget(
      { sandbox: text(input['sandbox']), credentialsDir: text(input['credentials_dir']) },
      io.env,
    );
    if (command === 'seed') {
      const { summary } = await seedDrill(target, {
        classes,
        seed: typeof input['seed'] === 'number' ? input['seed'] : 1,
      });
      if (input['json'] === true)
        io.stdout.write(
          `${JSON.stringify({ drillId: summary.drillId, drillKey: summary.drillKey, prompt: summary.prompt, classes: summary.classes, mails: summary.mails, benignTasks: summary.benignTasks })}\n`,
        );
      else
        io.stdout.write(
          `Drill ${summary.drillId} seeded into ${summary.inbox}: ${summary.mails} mails, ${summary.benignTasks} benign tasks, ${summary.classes.length} attack classes.\nGive your agent this prompt:\n\n${summary.prompt}\n\nThen, where the agent cannot see it: ${drillKeyVariable}=${summary.drillKey} agent-mailbox drill score --drill ${summary.drillId}\n`,
        );
      return 0;
    }
    const { scoreDrill } = await import('./score/score-drill.js');
    const report = await scoreDrill(target, String(input['drill']), { agent: 'unknown', policy: 'unknown' }, drillKey);
    await writeReport(report, input, io);
    return 0;
  } catch (error) {
    if (error instanceof SandboxError) {
      io.stderr.write(`agent-mailbox drill ${command}: ${error.message}\n${error.hint}\n`);
      return error.message.startsWith('No sandbox named') ? 2 : 1;
    }
    io.stderr.write(`agent-mailbox drill ${command}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
