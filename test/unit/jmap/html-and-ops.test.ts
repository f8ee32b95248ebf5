import { beforeAll, describe, expect, it } from 'vitest';
import { htmlToText, prepareHtmlToText } from '../../../src/present/html-to-text.js';
import { expandTemplate, resolveSessionUrl } from '../../../src/jmap/jmap-session.js';
import { parseOps } from '../../../src/jmap/parse-ops.js';
import { safeFileName } from '../../../src/mail/download-blob-to-file.js';

describe('parseOps', () => {
  it('accepts a bare array, an envelope, JSON text or a parsed value', () => {
    expect(parseOps('[["Core/echo", {}, "e"]]')).toEqual({ methodCalls: [['Core/echo', {}, 'e']] });
    expect(parseOps({ using: ['u'], methodCalls: [['Core/echo', {}, 'e']] })).toEqual({
      using: ['u'],
      methodCalls: [['Core/echo', {}, 'e']],
    });
  });

  it('rejects bad JSON and malformed calls with ops_invalid', () => {
    expect(() => parseOps('[["Core/echo", {}, "e"]')).toThrow(/not valid JSON/);
    expect(() => parseOps('[["Core/echo", {}]]')).toThrow(/call #0/);
    expect(() => parseOps('[]')).toThrow(/no method calls/);
  });
});

describe('session URLs', () => {
  it('resolves relative session URLs against the session URL, keeping template braces', () => {
    const base = 'http://127.0.0.1:8080/jmap';
    expect(resolveSessionUrl('/jmap/', base)).toBe('http://127.0.0.1:8080/jmap/');
    expect(resolveSessionUrl('/jmap/download/{accountId}/{blobId}/{name}?accept={type}', base)).toBe(
      'http://127.0.0.1:8080/jmap/download/{accountId}/{blobId}/{name}?accept={type}',
    );
    expect(resolveSessionUrl('https://x.test/api', base)).toBe('https://x.test/api');
  });

  it('expands templates with each value URL-encoded', () => {
    expect(
      expandTemplate('/d/{accountId}/{blobId}/{name}?accept={type}', {
        accountId: 'a@b.c',
        blobId: 'B1',
        name: 'my file.pdf',
        type: 'application/pdf',
      }),
    ).toBe('/d/a%40b.c/B1/my%20file.pdf?accept=application%2Fpdf');
  });
});

describe('htmlToText', () => {
  beforeAll(() => prepareHtmlToText('text/html'));

  it('renders paragraphs, line breaks, links and entities as text, without scripts or styles', () => {
    const html =
      '<html><head><style>p{}</style></head><body><p>Hello&nbsp;<b>Bob</b> &amp; co</p><script>x()</script><p>See <a href="https://e.test">this</a><br>bye &#128075;</p></body></html>';
    const text = htmlToText(html);
    expect(text).toBe('Hello Bob & co\n\nSee this [https://e.test]\nbye 👋');
    expect(text).not.toMatch(/x\(\)|p\{\}/);
  });

  it('reads layout tables as blocks and drops tracking pixels', () => {
    const html =
      '<table><tr><td><h2>Story</h2><p>A long paragraph that must not be wrapped at sixty characters by a table layout.</p><img src="https://t.test/p.gif"></td></tr></table>';
    expect(htmlToText(html)).toBe(
      'Story\n\nA long paragraph that must not be wrapped at sixty characters by a table layout.',
    );
  });
});

describe('safeFileName', () => {
  it('keeps only a harmless base name from a name a message chose', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('..\\..\\win.ini')).toBe('win.ini');
    expect(safeFileName('.bashrc')).toBe('bashrc');
    expect(safeFileName('a:b*c?.txt')).toBe('a_b_c_.txt');
    expect(safeFileName('')).toBe('attachment');
  });
});
