import { describe, expect, it } from 'vitest';
import { automaticReason } from '../../../src/mail/automatic-mail.js';
import { quoteOriginal, trimQuotedHistory, windowOf } from '../../../src/present/mail-text.js';
import { applyTransform } from '../../../src/presets/preset-transforms.js';

describe('quoted history and quoting', () => {
  it('folds a trailing quote with its attribution line, and keeps a body that is only a quote', () => {
    expect(trimQuotedHistory('Yes.\n\nOn Tue, Bob wrote:\n> question?\n>> older\n')).toEqual({
      text: 'Yes.',
      trimmedLines: 3,
    });
    expect(trimQuotedHistory('> only a quote')).toEqual({ text: '> only a quote', trimmedLines: 0 });
    expect(trimQuotedHistory('No quote here.').trimmedLines).toBe(0);
  });

  it('quotes the original below a reply in the usual form', () => {
    expect(
      quoteOriginal({ fromLabel: 'Ana <ana@x.test>', date: '2026-01-02T10:00:00Z', text: 'Hi\n> earlier\n' }),
    ).toBe('On 2026-01-02T10:00:00Z, Ana <ana@x.test> wrote:\n> Hi\n>> earlier');
  });

  it('windows text by characters, not UTF-16 units', () => {
    expect(windowOf('🚀🚀🚀abc', 1, 3)).toEqual({ text: '🚀🚀a', rest: 2 });
  });
});

describe('automatic mail (RFC 3834)', () => {
  it('marks Auto-Submitted other than no, Precedence bulk/list/junk and List-Id', () => {
    expect(automaticReason({ 'header:Auto-Submitted:asText': 'auto-replied' })).toBe('Auto-Submitted: auto-replied');
    expect(automaticReason({ 'header:Auto-Submitted:asText': 'No' })).toBeUndefined();
    expect(automaticReason({ 'header:Precedence:asText': ' Bulk ' })).toBe('Precedence: bulk');
    expect(automaticReason({ 'header:Precedence:asText': 'first-class' })).toBeUndefined();
    expect(automaticReason({ 'header:List-Id:asText': '<dev.lists.example.org>' })).toBe(
      'List-Id: <dev.lists.example.org>',
    );
    expect(automaticReason({ subject: 'hi' })).toBeUndefined();
  });
});

describe('reply_all_cc', () => {
  it('copies everyone else, never this inbox nor the one already in To', () => {
    const original = {
      from: [{ email: 'ana@x.test' }],
      to: [{ email: 'ME@agent-mailbox.test' }, { email: 'bob@x.test', name: 'Bob' }],
      cc: [{ email: 'ana@x.test' }, { email: 'carol@x.test' }, { email: 'bob@x.test' }],
    };
    expect(applyTransform('reply_all_cc', original, { INBOX: 'me@agent-mailbox.test' })).toEqual([
      { email: 'bob@x.test', name: 'Bob' },
      { email: 'carol@x.test' },
    ]);
    expect(
      applyTransform(
        'reply_all_cc',
        { from: [{ email: 'ana@x.test' }], to: [{ email: 'me@agent-mailbox.test' }] },
        { INBOX: 'me@agent-mailbox.test' },
      ),
    ).toBeNull();
  });
});
