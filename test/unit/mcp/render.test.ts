import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { helpOperation } from '../../../src/operations/index.js';
import { jmapRequestOperation } from '../../../src/operations/jmap-request.js';
import { renderError, renderSuccess } from '../../../src/mcp/server.js';
import { describeNextForMcp } from '../../../src/render/describe-next.js';
import { largeResultChars } from '../../../src/render/present-result.js';

function text(result: { content: unknown }): string {
  return (result.content as { text: string }[]).map((c) => c.text).join('\n');
}

describe('MCP rendering', () => {
  it('words a next step as a tool call, leaving out absent inputs', () => {
    expect(describeNextForMcp({ operation: 'help', input: { topic: 'presets' } })).toBe(
      'call `help` with {"topic":"presets"}',
    );
    expect(describeNextForMcp({ operation: 'register', input: { api_key: undefined } })).toBe('call `register`');
  });

  it('never lets a JWT or apiKey through an error message', () => {
    const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const result = renderError(
      new MailboxError({
        code: 'auth_rejected',
        message: `Rejected token ${jwt}`,
        hint: 'Log in again; "apiKey": "amk_secretsecretsecret" was refused.',
      }),
    );
    expect(JSON.stringify(result)).not.toContain(jwt);
    expect(JSON.stringify(result)).not.toContain('amk_secretsecretsecret');
    expect(result.isError).toBe(true);
  });

  it('says how to narrow a large result instead of cutting it', async () => {
    const big = {
      ok: true,
      summary: '1 call made, 0 errors.',
      dryRun: false,
      response: { methodResponses: [['Email/get', { list: [{ id: 'x'.repeat(largeResultChars) }] }, 'c']] },
    };
    const result = await renderSuccess(big, jmapRequestOperation.present);
    const lines = text(result).split('\n');
    expect(lines[0]).toBe('1 call made, 0 errors.');
    expect(text(result)).toMatch(/This result is \d+ KB\. To narrow it/);
    expect(JSON.stringify(result.structuredContent)).toContain('x'.repeat(largeResultChars));
  });

  it('leaves results that are not JMAP results unfenced and without a summary line', async () => {
    const result = await renderSuccess({ inbox: 'a@b.test', mode: 'existing' });
    // Compact JSON by default: no indentation spent on a model's context.
    expect(text(result)).toBe('{"inbox":"a@b.test","mode":"existing"}');
    expect(result.isError).toBeUndefined();
  });

  it('returns help as its Markdown text, with the fields in structuredContent', async () => {
    const result = await renderSuccess(
      { topic: 'overview', text: '# Overview\nHello', topics: ['overview'] },
      helpOperation.present,
    );
    expect(text(result)).toBe('# Overview\nHello');
    expect(result.structuredContent).toEqual({ topic: 'overview', text: '# Overview\nHello', topics: ['overview'] });
  });
});
