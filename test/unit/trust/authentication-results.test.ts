import { describe, expect, it } from 'vitest';
import { authservIdOf, parseAuthenticationResults, sameAuthservId } from '../../../src/trust/authentication-results.js';

// The sandbox's own field, as Email/get's header:Authentication-Results:asRaw gives it (folded, leading space).
const sandboxField =
  ' agent-mailbox.test;\r\n dkim=pass header.i=@example.org header.s=mail2024 header.a=rsa-sha256\r\n header.b="ab/cd+ef";\r\n spf=pass (agent-mailbox.test: domain of news@example.org designates 127.0.0.1\r\n as permitted sender) smtp.mailfrom=news@example.org smtp.helo=client.example.org;\r\n dmarc=pass (p=REJECT) header.from=example.org header.d=example.org';

describe('parseAuthenticationResults (RFC 8601 §2.2)', () => {
  it('reads the sandbox field: authserv-id, each method with its result and properties, comments dropped', () => {
    expect(parseAuthenticationResults(sandboxField)).toEqual({
      authservId: 'agent-mailbox.test',
      results: [
        { method: 'dkim', result: 'pass', properties: { 'header.i': '@example.org', 'header.s': 'mail2024', 'header.a': 'rsa-sha256', 'header.b': 'ab/cd+ef' } },
        { method: 'spf', result: 'pass', properties: { 'smtp.mailfrom': 'news@example.org', 'smtp.helo': 'client.example.org' } },
        { method: 'dmarc', result: 'pass', properties: { 'header.from': 'example.org', 'header.d': 'example.org' } },
      ],
    });
  });

  it('reads the RFC\'s example with comments and white space everywhere CFWS may stand', () => {
    const value =
      'foo.example.net (foobar) 1 (baz);\r\n dkim (Because I like it) / 1 (One yay) = (wait for it) fail\r\n policy (A dot can go here) . (like that) expired\r\n (this surprised me) = (as I wasn\'t expecting it) 1362471462';
    expect(parseAuthenticationResults(value)).toEqual({ authservId: 'foo.example.net', results: [{ method: 'dkim', result: 'fail', properties: { 'policy.expired': '1362471462' } }] });
  });

  it('reads "none", a version, a reason, upper-case keywords and quoted strings holding ; and (', () => {
    expect(parseAuthenticationResults('example.org 1; none')).toEqual({ authservId: 'example.org', results: [] });
    expect(parseAuthenticationResults('example.com; DKIM=Pass reason="good; (signature)" header.i=@mail-router.example.net')).toEqual({
      authservId: 'example.com',
      results: [{ method: 'dkim', result: 'pass', reason: 'good; (signature)', properties: { 'header.i': '@mail-router.example.net' } }],
    });
    expect(parseAuthenticationResults('"Agent-Mailbox.TEST"; dmarc=fail header.from=bank.test')?.authservId).toBe('Agent-Mailbox.TEST');
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

  it('reads the authserv-id of a field whose results are broken, so a broken field of ours still counts as ours', () => {
    expect(authservIdOf(' (c) agent-mailbox.test; dmarc=')).toBe('agent-mailbox.test');
    expect(authservIdOf('"quoted.example"; x')).toBe('quoted.example');
    expect(authservIdOf('(only a comment)')).toBeUndefined();
  });

  it('compares authserv-ids case-insensitively, a trailing dot ignored, and never matches an empty id', () => {
    expect(sameAuthservId('Agent-Mailbox.TEST.', 'agent-mailbox.test')).toBe(true);
    expect(sameAuthservId('agent-mailbox.testing', 'agent-mailbox.test')).toBe(false);
    expect(sameAuthservId('', '')).toBe(false);
  });
});
