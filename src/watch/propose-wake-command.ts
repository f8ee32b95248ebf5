import { dailySchedule } from './watch-marker.js';

/** A suggested wake command for the host this process runs in; shown to the operator, never installed. */
export interface WakeCommandProposal {
  host: 'claude-code' | 'openclaw' | 'hermes' | 'cursor';
  hostName: string;
  detectedBy: string;
  /** For `--wake-command`; `{prompt}` is replaced by the shell-quoted wake prompt. */
  wakeCommand: string;
  /** How to run the same prompt on the host's own scheduler. */
  hostScheduler: string;
}

type HostRule = Omit<WakeCommandProposal, 'detectedBy' | 'hostScheduler'> & {
  marker: string;
  hostScheduler: (inboxLabel: string) => string;
};

// Detection reads the host's own markers, never PATH: picking a runtime from PATH chose the wrong
// host (live-service bug 9). Tool lists are the narrowest each host accepts.
const hostRules: readonly HostRule[] = [
  {
    marker: 'CLAUDECODE',
    host: 'claude-code',
    hostName: 'Claude Code',
    wakeCommand: 'claude -p {prompt} --allowedTools "mcp__agent-mailbox__jmap_request,mcp__agent-mailbox__help"',
    hostScheduler: () =>
      `Or create a scheduled task in Claude Code / Claude Desktop that runs daily at 09:00 with the prompt from \`agent-mailbox watch status\` (field hostPrompt), allowing only the agent-mailbox tools.`,
  },
  {
    marker: 'OPENCLAW_HOME',
    host: 'openclaw',
    hostName: 'OpenClaw',
    wakeCommand: 'openclaw agent --agent main --message {prompt}',
    hostScheduler: (label) =>
      `Or schedule it in OpenClaw: openclaw cron add "${dailySchedule}" "<hostPrompt from agent-mailbox watch status>" --name "agent-mailbox-${label}" (one job name per inbox).`,
  },
  {
    marker: 'HERMES_HOME',
    host: 'hermes',
    hostName: 'Hermes',
    wakeCommand: 'hermes chat -q {prompt}',
    hostScheduler: (label) =>
      `Or schedule it in Hermes: hermes cron create "${dailySchedule}" "<hostPrompt from agent-mailbox watch status>" (name it agent-mailbox-${label}; see hermes cron --help).`,
  },
  {
    marker: 'CURSOR_AGENT',
    host: 'cursor',
    hostName: 'Cursor',
    wakeCommand: 'cursor-agent -p {prompt} --mode=ask',
    hostScheduler: () => 'Cursor has no scheduler of its own: keep the crontab job, or run `agent-mailbox watch run`.',
  },
];

/** Suggests the calling host's headless command for the wake job, from its environment markers. */
export function proposeWakeCommand(
  env: Readonly<Record<string, string | undefined>>,
  inboxLabel = 'inbox',
): WakeCommandProposal | undefined {
  for (const rule of hostRules) {
    const { marker, hostScheduler, ...proposal } = rule;
    const value = env[marker];
    if (value !== undefined && value !== '')
      return { ...proposal, hostScheduler: hostScheduler(inboxLabel), detectedBy: marker };
  }
  return undefined;
}
