import { describe, expect, it } from 'vitest';
import { resolveConfig, settings } from '../../../src/config.js';
import { MailboxError } from '../../../src/errors.js';
import { exitCodeOf } from '../../../src/render/render-error.js';

describe('the config table', () => {
  it('reports a bad setting as invalid_input naming where it came from and how to fix it, exit 2', () => {
    let caught: unknown;
    try {
      resolveConfig({ env: { AGENT_MAILBOX_TIMEOUT_MS: 'soon' } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MailboxError);
    const error = caught as MailboxError;
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain('AGENT_MAILBOX_TIMEOUT_MS');
    expect(error.hint).toContain('--timeout-ms');
    expect(exitCodeOf(error)).toBe(2);
  });

  it('declares the crontab program and the wake command once, flag over environment over default', () => {
    expect(settings.crontab.env).toBe('AGENT_MAILBOX_CRONTAB');
    expect(resolveConfig({}).crontab).toBe('crontab');
    expect(resolveConfig({ env: { AGENT_MAILBOX_CRONTAB: '/opt/cron/crontab' } }).crontab).toBe('/opt/cron/crontab');
    const both = resolveConfig({
      flags: { wakeCommand: 'from-flag {prompt}' },
      env: { AGENT_MAILBOX_WAKE_COMMAND: 'from-env {prompt}' },
    });
    expect(both.wakeCommand).toBe('from-flag {prompt}');
    expect(both.sources.wakeCommand).toBe('flag');
  });
});

describe('the user config directory', () => {
  it("follows the entry's environment as env-paths does, so the user policy sits beside the default inbox", async () => {
    const { resolveUserConfigDir } = await import('../../../src/config.js');
    expect(resolveUserConfigDir({ HOME: '/home/ana' }, 'linux')).toBe('/home/ana/.config/agent-mailbox');
    expect(resolveUserConfigDir({ HOME: '/home/ana', XDG_CONFIG_HOME: '/cfg' }, 'linux')).toBe('/cfg/agent-mailbox');
    expect(resolveUserConfigDir({ HOME: '/Users/ana' }, 'darwin')).toBe('/Users/ana/Library/Preferences/agent-mailbox');
  });
});
