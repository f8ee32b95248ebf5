import { describe, expect, it } from 'vitest';
import {
  authservIdOf,
  claimsAuthservId,
  formatAuthenticationResults,
} from '../../src/mail-auth/authentication-results.js';
import { findHeaderEnd, splitHeaderFields } from '../../src/mail-auth/header-fields.js';
import { createMailAuthority } from '../../src/mail-auth/mail-authority.js';
import { composeMail, outsideDomain, zoneOf } from './mail-auth-kit.js';

describe('Authentication-Results fields (RFC 8601)', () => {
  it.each([
    [' example.org; spf=pass', 'example.org'],
    ['example.org 1; none', 'example.org'],
    [' (a comment (nested, with \\) an escaped paren)) example.org;', 'example.org'],
    ['\r\n\t"Example.ORG" ; dkim=pass', 'Example.ORG'],
    [' "quoted \\" id";', 'quoted " id'],
    [' ;dkim=pass', undefined],
    [' (unclosed comment example.org;', undefined],
  ])('reads the authserv-id of %j as %j', (value, id) => {
    expect(authservIdOf(value)).toBe(id);
  });

  it('claims the id case-insensitively and with a trailing dot, in any spelling of the field name', () => {
    const ours = 'agent-mailbox.test';
    expect(claimsAuthservId('Authentication-Results: agent-mailbox.test; dmarc=pass\r\n', ours)).toBe(true);
    expect(claimsAuthservId('authentication-results :\r\n (x) "AGENT-MAILBOX.TEST." 1; none\r\n', ours)).toBe(true);
    expect(claimsAuthservId('Authentication-Results: mx.agent-mailbox.test; dmarc=pass\r\n', ours)).toBe(false);
    expect(claimsAuthservId('Authentication-Results: agent-mailbox.testing; dmarc=pass\r\n', ours)).toBe(false);
    expect(claimsAuthservId('ARC-Authentication-Results: i=1; agent-mailbox.test; dmarc=pass\r\n', ours)).toBe(false);
    expect(claimsAuthservId('X-Authentication-Results: agent-mailbox.test; dmarc=pass\r\n', ours)).toBe(false);
  });

  it('folds long results under 78 columns so that unfolding gives each result back exactly', () => {
    const results = [
      'dkim=pass header.i=@example.org header.s=selector header.a=rsa-sha256 header.b=abcdefgh',
      'spf=pass (a comment long enough to need folding, about the sender and the address) smtp.mailfrom=a@example.org',
      'dmarc=pass (p=REJECT) header.from=example.org',
    ];
    const field = formatAuthenticationResults('agent-mailbox.test', results);
    expect(field.endsWith('\r\n')).toBe(true);
    for (const line of field.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
    expect(field.replace(/\r\n(?=[ \t])/g, '')).toBe(
      `Authentication-Results: agent-mailbox.test; ${results.join('; ')}\r\n`,
    );
  });
});

describe('the header section', () => {
  it('splits into fields with their folded lines and joins back byte for byte', () => {
    const section = 'From: a@example.org\r\nSubject: one\r\n two\r\n\tthree\r\nX-Bare: lf\nTo: b@example.org\r\n';
    const fields = splitHeaderFields(section);
    expect(fields).toEqual([
      'From: a@example.org\r\n',
      'Subject: one\r\n two\r\n\tthree\r\n',
      'X-Bare: lf\n',
      'To: b@example.org\r\n',
    ]);
    expect(fields.join('')).toBe(section);
  });

  it('ends at the first empty line, with CRLF or bare LF, or at once when the message starts with one', () => {
    expect(findHeaderEnd('A: b\r\n\r\nbody')).toEqual({ fieldsEnd: 6, bodyStart: 8 });
    expect(findHeaderEnd('A: b\n\nbody')).toEqual({ fieldsEnd: 5, bodyStart: 6 });
    expect(findHeaderEnd('\r\nbody')).toEqual({ fieldsEnd: 0, bodyStart: 2 });
    expect(findHeaderEnd('A: b\r\nC: d\r\n')).toBeUndefined();
  });
});

describe('checking a message as it streams in', () => {
  it('gives the same verdict and bytes whether the message arrives whole or one byte at a time', async () => {
    const example = outsideDomain('example.org');
    const authority = await createMailAuthority({
      domain: 'agent-mailbox.test',
      authservId: 'agent-mailbox.test',
      dns: zoneOf(example.records),
    });
    const raw = await example.sign(
      await composeMail({
        from: 'a@example.org',
        to: 'b@agent-mailbox.test',
        subject: 'bytes',
        text: 'line one\r\n\r\nline  three\t\r\n',
        headers: ['Authentication-Results: agent-mailbox.test; dmarc=pass'],
      }),
    );
    const identity = { ip: '127.0.0.1', helo: 'client.example.org', sender: 'a@example.org' };
    const outcomes = [];
    for (const size of [raw.length, 1, 7]) {
      const check = authority.checkInbound(identity);
      const chunks: Buffer[] = [];
      for (let at = 0; at < raw.length; at += size) {
        chunks.push(raw.subarray(at, at + size));
        if (!check.write(raw.subarray(at, at + size))) await new Promise<void>((resolve) => check.onDrain(resolve));
      }
      const outcome = await check.finish();
      if (outcome.kind !== 'checked') throw new Error(outcome.reason);
      outcomes.push({
        results: outcome.results.map((result) => result.text),
        stamped: outcome.stamp(chunks).toString('latin1'),
      });
    }
    expect(outcomes[0]?.results.join('; ')).toMatch(/^dkim=pass .*; spf=pass .*; dmarc=pass /);
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(outcomes[2]).toEqual(outcomes[0]);
    // The forged field is gone and everything below the header section is untouched.
    const stamped = outcomes[0]?.stamped ?? '';
    expect(stamped.match(/^Authentication-Results:/gm)).toHaveLength(1);
    expect(stamped.slice(stamped.indexOf('\r\n\r\n'))).toBe(
      raw.toString('latin1').slice(raw.toString('latin1').indexOf('\r\n\r\n')),
    );
  });

  it('stamps a message that is all header section, and one with bare LF line ends, without changing their text', async () => {
    const authority = await createMailAuthority({ domain: 'agent-mailbox.test', authservId: 'agent-mailbox.test' });
    for (const raw of [
      Buffer.from('From: a@example.org\r\nSubject: no body\r\n'),
      Buffer.from('From: a@example.org\nSubject: bare\n\nbody\nline\n'),
    ]) {
      const check = authority.checkInbound({ ip: '127.0.0.1', helo: 'h.example.org', sender: 'a@example.org' });
      check.write(raw);
      const outcome = await check.finish();
      if (outcome.kind !== 'checked') throw new Error(outcome.reason);
      expect(outcome.stamp(raw).toString('latin1')).toBe(outcome.field + raw.toString('latin1'));
    }
  });
});
