import { describe, expect, it } from 'vitest';
import {
  authservIdOf,
  parseAuthenticationResults,
  sameAuthservId,
  unfoldHeaderValue,
} from '../../../src/trust/authentication-results.js';

// The sandbox's own field, as Email/get's header:Authentication-Results:asRaw gives it (folded, leading space).
const sandboxField =
  ' agent-mailbox.test;\r\n dkim=pass header.i=@example.org header.s=mail2024 header.a=rsa-sha256\r\n header.b="ab/cd+ef";\r\n spf=pass (agent-mailbox.test: domain of news@example.org designates 127.0.0.1\r\n as permitted sender) smtp.mailfrom=news@example.org smtp.helo=client.example.org;\r\n dmarc=pass (p=REJECT) header.from=example.org header.d=example.org';

describe('parseAuthenticationResults (RFC 8601 §2.2)', () => {
  it('reads the sandbox field: authserv-id, each method with its result and properties, comments dropped', () => {
    expect(parseAuthenticationResults(sandboxField)).toEqual({
      authservId: 'agent-mailbox.test',
      results: [
        {
          method: 'dkim',
          result: 'pass',
          properties: {
            'header.i': '@example.org',
            'header.s': 'mail2024',
            'header.a': 'rsa-sha256',
            'header.b': 'ab/cd+ef',
          },
        },
        {
          method: 'spf',
          result: 'pass',
          properties: { 'smtp.mailfrom': 'news@example.org', 'smtp.helo': 'client.example.org' },
        },
        { method: 'dmarc', result: 'pass', properties: { 'header.from': 'example.org', 'header.d': 'example.org' } },
      ],
    });
  });

  it("reads the RFC's example with comments and white space everywhere CFWS may stand", () => {
    const value =
      "foo.example.net (foobar) 1 (baz);\r\n dkim (Because I like it) / 1 (One yay) = (wait for it) fail\r\n policy (A dot can go here) . (like that) expired\r\n (this surprised me) = (as I wasn't expecting it) 1362471462";
    expect(parseAuthenticationResults(value)).toEqual({
      authservId: 'foo.example.net',
      results: [{ method: 'dkim', result: 'fail', properties: { 'policy.expired': '1362471462' } }],
    });
  });

  it('reads "none", a version, a reason, upper-case keywords and quoted strings holding ; and (', () => {
    expect(parseAuthenticationResults('example.org 1; none')).toEqual({ authservId: 'example.org', results: [] });
    expect(
      parseAuthenticationResults('example.com; DKIM=Pass reason="good; (signature)" header.i=@mail-router.example.net'),
    ).toEqual({
      authservId: 'example.com',
      results: [
        {
          method: 'dkim',
          result: 'pass',
          reason: 'good; (signature)',
          properties: { 'header.i': '@mail-router.example.net' },
        },
      ],
    });
    expect(parseAuthenticationResults('"Agent-Mailbox.TEST"; dmarc=fail header.from=bank.test')?.authservId).toBe(
      'Agent-Mailbox.TEST',
    );
  });

  it('gives no result for values that break the grammar, rather than guessing', () => {
    for (const value of [
      '',
      'example.com',
      'example.com; ',
      'example.com; dmarc',
      'example.com; dmarc=pass header.from',
      'example.com; dmarc=pass (unclosed comment',
      'example.com; dmarc=pass header.from="unclosed',
      'example.com extra words; dmarc=pass',
      'example.com; dmarc=pass; none',
      'example.com; =pass',
      'example.com; dmarc=pass stray',
    ]) {
      expect(parseAuthenticationResults(value), value).toBeUndefined();
    }
  });

  it('reads quoted-pairs in quoted strings and comments, nested comments, and a comment standing between two words', () => {
    expect(
      parseAuthenticationResults(
        'example.com (said \\) still a comment (nested (twice)) end); dkim=pass reason="a \\"quoted; (text)\\" = here. ok" header.d=x.test',
      ),
    ).toEqual({
      authservId: 'example.com',
      results: [
        {
          method: 'dkim',
          result: 'pass',
          reason: 'a "quoted; (text)" = here. ok',
          properties: { 'header.d': 'x.test' },
        },
      ],
    });
    expect(parseAuthenticationResults('example.com; dkim=pass(signed)header.d=x.test')?.results).toEqual([
      { method: 'dkim', result: 'pass', properties: { 'header.d': 'x.test' } },
    ]);
    expect(parseAuthenticationResults('example.com; dkim=pass reason="" header.d=x.test')?.results[0]?.reason).toBe('');
  });

  it('reads a version of any digits after the authserv-id and the method, one-letter keywords, and nothing else there', () => {
    expect(parseAuthenticationResults('example.com 12; dkim/12=pass')).toEqual({
      authservId: 'example.com',
      results: [{ method: 'dkim', result: 'pass', properties: {} }],
    });
    expect(parseAuthenticationResults('example.com; x=y')?.results).toEqual([
      { method: 'x', result: 'y', properties: {} },
    ]);
    for (const value of [
      'example.com x1; dkim=pass',
      'example.com 1x; dkim=pass',
      'example.com 1 2; dkim=pass',
      '""; dkim=pass',
      'example.com; none; dkim=pass',
      'example.com; dkim/1x=pass',
      'example.com; -dkim=pass',
      'example.com; dkim-=pass',
      'example.com; dkim=pass-',
    ]) {
      expect(parseAuthenticationResults(value), value).toBeUndefined();
    }
  });

  it('gives no result for a property or reason that breaks the grammar', () => {
    for (const value of [
      'example.com; dkim=pass header.d=',
      'example.com; dkim=pass reason=one reason=two',
      'example.com; dkim=pass header.d=x.test reason=late',
      'example.com; dkim=pass policy=x',
      'example.com; dkim=pass header_x.from=a',
      'example.com; dkim=pass header.from+x=a',
      'example.com; dkim=pass header.b="a"b',
      'example.com; dkim=pass =x',
    ]) {
      expect(parseAuthenticationResults(value), value).toBeUndefined();
    }
  });

  it('reads the authserv-id of a field whose results are broken, so a broken field of ours still counts as ours', () => {
    expect(authservIdOf(' (c) agent-mailbox.test; dmarc=')).toBe('agent-mailbox.test');
    expect(authservIdOf('"quoted.example"; x')).toBe('quoted.example');
    expect(authservIdOf('(only a comment)')).toBeUndefined();
    expect(authservIdOf('agent-mailbox.test; dmarc=pass reason="never closed')).toBeUndefined();
    expect(authservIdOf('agent-mailbox.test (never closed; dmarc=pass')).toBeUndefined();
  });

  it('compares authserv-ids case-insensitively, a trailing dot ignored, and never matches an empty id', () => {
    expect(sameAuthservId('Agent-Mailbox.TEST.', 'agent-mailbox.test')).toBe(true);
    expect(sameAuthservId('agent-mailbox.testing', 'agent-mailbox.test')).toBe(false);
    expect(sameAuthservId('', '')).toBe(false);
    expect(sameAuthservId(' agent-mailbox.test ', 'agent-mailbox.test')).toBe(true);
    // A look-alike with a dotless i is another service, though both upper-case alike.
    expect(sameAuthservId('agent-ma\u0131lbox.test', 'agent-mailbox.test')).toBe(false);
  });
});

describe('unfoldHeaderValue (RFC 5322 §2.2.3)', () => {
  it('joins folded lines, with CRLF or a bare LF, drops a final line break, and keeps a break not followed by white space', () => {
    expect(unfoldHeaderValue(' a;\r\n b;\n\tc\r\n')).toBe(' a; b;\tc');
    expect(unfoldHeaderValue('a;\nb')).toBe('a;\nb');
    expect(unfoldHeaderValue('a;\r\nb\n')).toBe('a;\r\nb');
  });
});
