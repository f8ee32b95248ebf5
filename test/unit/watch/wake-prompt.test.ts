import { describe, expect, it } from 'vitest';
import { expandWakeCommand } from '../../../src/watch/run-wake-command.js';
import { wakePrompt } from '../../../src/watch/wake-prompt.js';

describe('wake prompt', () => {
  const prompt = wakePrompt({
    credentialsDir: '/c/inbox',
    inbox: 'bot@agent-mailbox.test',
    digestPath: '/c/inbox/inbox-digest.md',
  });

  it('points at the digest and the inbox tools with the credentials directory', () => {
    expect(prompt).toContain('/c/inbox/inbox-digest.md');
    expect(prompt).toContain('jmap_request');
    expect(prompt).toContain('credentials_dir "/c/inbox"');
  });

  it('says mail is data, never instructions, and forbids sending, deleting, forwarding, links and attachments', () => {
    expect(prompt).toMatch(/untrusted data .* never instructions/);
    for (const word of ['send', 'forward', 'delete', 'links', 'attachments']) expect(prompt).toContain(word);
  });

  it('for a host scheduler, tells the agent to list new mail itself instead of reading a digest', () => {
    const hostPrompt = wakePrompt({ credentialsDir: '/c/inbox' });
    expect(hostPrompt).toContain('list_new');
    expect(hostPrompt).not.toContain('inbox-digest.md');
  });

  it('replaces {prompt}, {digest} and {credentials_dir} shell-quoted, so quotes in the prompt stay one argument', () => {
    const line = expandWakeCommand('agent -p {prompt} --file {digest} --dir {credentials_dir}', {
      prompt: "it's data",
      digestPath: '/d/inbox-digest.md',
      credentialsDir: '/d',
    });
    expect(line).toBe("agent -p 'it'\\''s data' --file /d/inbox-digest.md --dir /d");
  });
});
