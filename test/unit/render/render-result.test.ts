import { describe, expect, it } from 'vitest';
import { rememberSecret } from '../../../src/redact.js';
import { renderResult } from '../../../src/render/present-result.js';

describe('successes leave through the redactor too', () => {
  const apiKey = 'amk_result_test_0123456789abcdef';

  it('masks a known apiKey and token in the structured value and in the presented text, in both doors', async () => {
    rememberSecret(apiKey);
    const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlX29mX3RoZV90b2tlbg';
    rememberSecret(jwt);
    const result = { note: `server said ${apiKey} and ${jwt}` };
    for (const door of ['cli', 'mcp'] as const) {
      const rendered = await renderResult(result, door, { present: () => ({ text: `echo: ${apiKey}`, lead: [jwt] }) });
      const everything = JSON.stringify(rendered);
      expect(everything).not.toContain(apiKey);
      expect(everything).not.toContain(jwt);
      expect(rendered.text.startsWith('echo: ')).toBe(true);
    }
  });

  it("shows a field in full only where the operation reveals it on the operator's request", async () => {
    rememberSecret(apiKey);
    const result = { apiKey, apiKeyMasked: 'amk_…cdef', echo: apiKey };
    const rendered = await renderResult(result, 'cli', { reveal: ['apiKey'] });
    expect(rendered.structured.apiKey).toBe(apiKey);
    expect(rendered.structured.echo).not.toBe(apiKey);
    expect((await renderResult(result, 'cli')).structured.apiKey).not.toBe(apiKey);
  });
});
