import { describe, expect, it } from 'vitest';
import { cliSpellingOf } from '../../../src/operations/cli-spelling.js';
import { MailboxError, inputRef } from '../../../src/errors.js';
import { inboxChoiceCarrier } from '../../../src/render/carry-inbox-choice.js';
import { operationsFor } from '../../../src/operations/index.js';
import { renderResult } from '../../../src/render/present-result.js';
import { renderError } from '../../../src/render/render-error.js';

// Next steps are what an agent copies: they must name the inbox it used and be spelled the way
// its door takes input (flags in the CLI, arguments over MCP).
const readMessage = { operation: 'jmap_request', input: { ops_file: 'read_message', vars: { MAIL_ID: 'M1' } } };

describe("next steps carry the caller's inbox", () => {
  it('adds credentials_dir to every step of an entry that takes it, in the result, its text and an error', async () => {
    const adjust = inboxChoiceCarrier(operationsFor('mcp'))('/tmp/inbox-b');
    const result = { next: [readMessage, 'a sentence stays', { operation: 'help', input: { topic: 'presets' } }] };
    const rendered = await renderResult(result, 'mcp', {
      wording: { adjust },
      present: (r, _door, describe) => ({
        text: (r as typeof result).next.map((n) => (typeof n === 'string' ? n : describe(n))).join('\n'),
      }),
    });
    expect(rendered.structured.next).toEqual([
      {
        operation: 'jmap_request',
        input: { ops_file: 'read_message', vars: { MAIL_ID: 'M1' }, credentials_dir: '/tmp/inbox-b' },
      },
      'a sentence stays',
      { operation: 'help', input: { topic: 'presets' } },
    ]);
    expect(rendered.text).toContain('"credentials_dir":"/tmp/inbox-b"');
    expect(rendered.text).not.toMatch(/help.*credentials_dir/);

    const error = new MailboxError({ code: 'jmap_method_error', message: 'm', hint: 'h', next: readMessage });
    const shown = renderError(error, 'mcp', { adjust });
    expect(shown.structured.error.next).toMatchObject({ input: { credentials_dir: '/tmp/inbox-b' } });
    expect(shown.text).toContain('/tmp/inbox-b');
  });

  it('changes nothing when the caller used the default inbox or named a directory in the step already', () => {
    expect(inboxChoiceCarrier(operationsFor('mcp'))(undefined)).toBeUndefined();
    const adjust = inboxChoiceCarrier(operationsFor('mcp'))('/tmp/a');
    const own = { operation: 'jmap_request', input: { credentials_dir: '/tmp/other' } };
    expect(adjust?.(own)).toBe(own);
  });
});

describe('the CLI spells next steps as the table declares its flags', () => {
  const cli = cliSpellingOf(operationsFor('cli'));

  it('repeats a repeatable flag under its own name and keeps positional inputs bare', () => {
    const renderedError = renderError(
      new MailboxError({
        code: 'attachment_invalid',
        message: 'm',
        hint: 'h',
        next: {
          operation: 'jmap_request',
          input: { ops_file: 'send_mail_blob_attachment', attachments: ['a.pdf', 'b c.png'] },
        },
      }),
      'cli',
      { cli },
    );
    expect(renderedError.structured.error.nextCommand).toBe(
      "agent-mailbox jmap_request --ops-file send_mail_blob_attachment --attachment a.pdf --attachment 'b c.png'",
    );
    const help = renderError(
      new MailboxError({
        code: 'help_topic_unknown',
        message: 'm',
        hint: 'h',
        next: { operation: 'help', input: { topic: 'presets' } },
      }),
      'cli',
      { cli },
    );
    expect(help.structured.error.nextCommand).toBe('agent-mailbox help presets');
    const watch = renderError(
      new MailboxError({
        code: 'watch_failed',
        message: 'm',
        hint: 'h',
        next: { operation: 'watch_status', input: {} },
      }),
      'cli',
      { cli },
    );
    expect(watch.structured.error.nextCommand).toBe('agent-mailbox watch status');
  });

  it('names inputs in hints as flags in the CLI and as arguments over MCP', async () => {
    const error = new MailboxError({
      code: 'invalid_input',
      message: `Give ${inputRef('ops')} or ${inputRef('ops_file')}.`,
      hint: `Attach with ${inputRef('attachments')}; see ${inputRef('credentials_dir')}.`,
    });
    const cliText = renderError(error, 'cli', { cli });
    expect(cliText.text).toContain('Give --ops or --ops-file.');
    expect(cliText.text).toContain('Attach with --attachment; see --credentials-dir.');
    expect(cliText.structured.error.hint).toBe('Attach with --attachment; see --credentials-dir.');
    const mcpText = renderError(error, 'mcp');
    expect(mcpText.text).toContain('Give ops or ops_file.');
    expect(mcpText.structured.error.message).toBe('Give ops or ops_file.');
    const result = await renderResult({ next: [`list with ${inputRef('ops_file')} list_inbox`] }, 'cli', {
      wording: { cli },
    });
    expect(result.structured.next).toEqual(['list with --ops-file list_inbox']);
  });
});
