import { describe, expect, it } from 'vitest';
import { confirmForm, readConfirmAnswer } from '../../../src/mcp/confirm-form.js';
import type { ConfirmRequest } from '../../../src/operations/define-operation.js';

const ask: ConfirmRequest = {
  message: 'Send it?',
  fields: {
    confirm: { type: 'boolean', title: 'Send', required: true, default: false },
    copies: { type: 'number', title: 'Copies', minimum: 1, maximum: 3 },
    tone: { type: 'choice', title: 'Tone', options: ['plain', 'warm'], description: 'How it reads.' },
  },
};

describe('a confirmation as an MCP form', () => {
  it('writes each field in the restricted elicitation schema, choices as a string enum', () => {
    expect(confirmForm(ask)).toEqual({
      type: 'object',
      properties: {
        confirm: { type: 'boolean', title: 'Send', default: false },
        copies: { type: 'number', title: 'Copies', minimum: 1, maximum: 3 },
        tone: { type: 'string', title: 'Tone', description: 'How it reads.', enum: ['plain', 'warm'] },
      },
      required: ['confirm'],
    });
    expect(confirmForm({ message: 'Go?', fields: {} })).toEqual({ type: 'object', properties: {} });
  });

  it('takes an accept only with content that fits the form, cut to its fields', async () => {
    expect(
      await readConfirmAnswer({ action: 'accept', content: { confirm: true, copies: 2, extra: 'x' } }, ask),
    ).toEqual({ action: 'accept', content: { confirm: true, copies: 2 } });
    for (const content of [
      { confirm: true, copies: 9 },
      { confirm: true, tone: 'cold' },
      { copies: 1 },
      { confirm: 1 },
    ]) {
      expect(await readConfirmAnswer({ action: 'accept', content }, ask), JSON.stringify(content)).toEqual({
        action: 'cancel',
      });
    }
    // A plain yes/no form accepts with no content at all.
    expect(await readConfirmAnswer({ action: 'accept' }, { message: 'Go?', fields: {} })).toEqual({
      action: 'accept',
      content: {},
    });
  });

  it('reads decline as decline and anything that is not an answer as cancel', async () => {
    expect(await readConfirmAnswer({ action: 'decline' }, ask)).toEqual({ action: 'decline' });
    for (const reply of [
      { action: 'cancel' },
      { action: 'yes' },
      'accept',
      null,
      undefined,
      { content: { confirm: true } },
    ]) {
      expect(await readConfirmAnswer(reply, ask), JSON.stringify(reply)).toEqual({ action: 'cancel' });
    }
  });
});
