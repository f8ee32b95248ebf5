import { describe, expect, it } from 'vitest';
import { MailboxError, settingRef } from '../../../src/errors.js';
import { renderError } from '../../../src/render/render-error.js';
import { renderResult } from '../../../src/render/present-result.js';

const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

describe('the one renderer both doors use', () => {
  it('renders the same failure with the same fields in both doors, the next step worded for each', () => {
    const error = new MailboxError({
      code: 'vars_missing',
      message: 'SUBJECT is missing.',
      hint: 'Pass it in vars.',
      next: { operation: 'help', input: { topic: 'presets' } },
    });
    const cli = renderError(error, 'cli');
    const mcp = renderError(error, 'mcp');
    const { nextCommand, ...cliFields } = cli.structured.error;
    const { nextCall, ...mcpFields } = mcp.structured.error;
    expect(cliFields).toEqual(mcpFields);
    expect(nextCommand).toBe('agent-mailbox help presets');
    expect(nextCall).toBe('call `help` with {"topic":"presets"}');
    expect(cli.text).toBe('error: SUBJECT is missing.\nnext: Pass it in vars.\n  agent-mailbox help presets');
  });

  it('names a setting as a flag at the shell and as the server variable the operator sets over MCP', () => {
    const error = new MailboxError({
      code: 'network',
      message: `No answer within the limit (${settingRef('timeoutMs')}).`,
      hint: `Check that ${settingRef('authUrl')} and ${settingRef('apiUrl')} point at the service.`,
    });
    const cli = renderError(error, 'cli');
    expect(cli.text).toBe(
      'error: No answer within the limit (--timeout-ms / AGENT_MAILBOX_TIMEOUT_MS).\n' +
        'next: Check that --auth-url / AGENT_MAILBOX_AUTH_URL and --api-url / AGENT_MAILBOX_API_URL point at the service.',
    );
    const mcp = renderError(error, 'mcp');
    expect(mcp.text).not.toMatch(/--|⟪/);
    expect(mcp.text).toContain("the MCP server's AGENT_MAILBOX_AUTH_URL (set in the host's config by your operator)");
    expect(mcp.structured).toMatchObject({
      error: { hint: expect.stringContaining("the MCP server's AGENT_MAILBOX_API_URL") },
    });
  });

  it('redacts tokens a server quoted back, in both doors', () => {
    const error = new MailboxError({
      code: 'auth_rejected',
      message: `Rejected ${jwt}`,
      hint: 'Log in again; "apiKey": "amk_secretsecretsecret" was refused.',
      status: 401,
    });
    for (const door of ['cli', 'mcp'] as const) {
      const shown = JSON.stringify(renderError(error, door));
      expect(shown).not.toContain(jwt);
      expect(shown).not.toContain('amk_secretsecretsecret');
    }
  });

  it('exits 2 only for input refused locally; the same code from a server exits 1', () => {
    expect(
      renderError(new MailboxError({ code: 'username_invalid', message: 'too short', hint: 'longer' }), 'cli').exitCode,
    ).toBe(2);
    expect(
      renderError(new MailboxError({ code: 'username_invalid', message: 'refused', hint: 'other', status: 422 }), 'cli')
        .exitCode,
    ).toBe(1);
    expect(renderError(new MailboxError({ code: 'network', message: 'down', hint: 'retry' }), 'cli').exitCode).toBe(1);
  });

  it('shows a result exactly, as compact JSON, unless the operation presents it', async () => {
    const result = { a: 1, nested: { text: 'x' } };
    expect(await renderResult(result, 'mcp')).toEqual({
      text: '{"a":1,"nested":{"text":"x"}}',
      isPresented: false,
      lead: [],
      structured: result,
      isError: false,
    });
    const presented = await renderResult(result, 'cli', { present: () => ({ lead: ['one line'], isError: true }) });
    expect(presented).toMatchObject({ lead: ['one line'], structured: result, isError: true });
  });
});
