import { describe, expect, it } from 'vitest';
import { proposeWakeCommand } from '../../../src/watch/propose-wake-command.js';

describe('proposeWakeCommand', () => {
  it('proposes Claude Code headless mode limited to the two agent-mailbox tools when CLAUDECODE is set', () => {
    const proposal = proposeWakeCommand({ CLAUDECODE: '1', PATH: '/usr/bin' });
    expect(proposal?.host).toBe('claude-code');
    expect(proposal?.detectedBy).toBe('CLAUDECODE');
    expect(proposal?.wakeCommand).toBe(
      'claude -p {prompt} --allowedTools "mcp__agent-mailbox__jmap_request,mcp__agent-mailbox__help"',
    );
    expect(proposal?.hostScheduler).toMatch(/scheduled task/);
  });

  it('detects OpenClaw, Hermes and Cursor from their own markers and names the host job per inbox', () => {
    expect(proposeWakeCommand({ OPENCLAW_HOME: '/x' }, 'abcd1234')?.hostScheduler).toContain('agent-mailbox-abcd1234');
    expect(proposeWakeCommand({ HERMES_HOME: '/x' })?.host).toBe('hermes');
    expect(proposeWakeCommand({ CURSOR_AGENT: '1' })?.wakeCommand).toContain('--mode=ask');
  });

  it('proposes nothing from PATH alone (live-service bug 9)', () => {
    expect(proposeWakeCommand({ PATH: '/home/me/.claude/bin:/usr/bin' })).toBeUndefined();
    expect(proposeWakeCommand({ CLAUDECODE: '' })).toBeUndefined();
  });
});
