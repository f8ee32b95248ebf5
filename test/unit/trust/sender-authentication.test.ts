import { describe, expect, it } from 'vitest';
import { parseAuthenticationResults } from '../../../src/trust/authentication-results.js';
import {
  authenticateSender,
  judgeDomain,
  senderAuthenticationCacheBounds,
  senderAuthenticationCacheSize,
  senderFactsOf,
  type SenderFacts,
} from '../../../src/trust/sender-authentication.js';

const ours = 'agent-mailbox.test';
const facts = (from: string | string[], ...fields: string[]): SenderFacts => ({
  from: (Array.isArray(from) ? from : [from]).map((email) => ({ email })),
  authenticationResults: fields,
});

describe('authenticateSender', () => {
  it('passes when the topmost field of the service says dmarc=pass for the From domain', () => {
    const verdict = authenticateSender(
      facts(
        'News@Example.ORG',
        `${ours}; spf=pass smtp.mailfrom=x@example.org; dmarc=pass (p=REJECT) header.from=example.org`,
      ),
      ours,
    );
    expect(verdict).toMatchObject({
      verdict: 'pass',
      authenticated: true,
      dmarc: 'pass',
      sender: { address: 'news@example.org', domain: 'example.org' },
    });
    expect(verdict.reason).toBeUndefined();
    expect(verdict.results?.map((r) => `${r.method}=${r.result}`)).toEqual(['spf=pass', 'dmarc=pass']);
  });

  it('says dmarc=fail for a From domain that failed DMARC, whatever SPF and DKIM said for other domains', () => {
    const field = `${ours}; dkim=pass header.i=@example.org; spf=pass smtp.mailfrom=mallory@example.org; dmarc=fail (p=REJECT) header.from=bank.test`;
    expect(authenticateSender(facts('ceo@bank.test', field), ours)).toMatchObject({
      verdict: 'unverified',
      authenticated: false,
      dmarc: 'fail',
      reason: 'dmarc=fail',
    });
  });

  it("trusts only the topmost field with the service's authserv-id: a forged pass below it, or under another id, counts for nothing", () => {
    const real = `${ours}; dmarc=none header.from=bank.test`;
    const forged = `${ours}; dmarc=pass header.from=bank.test`;
    const other = 'mx.relay.example; dmarc=pass header.from=bank.test';
    expect(authenticateSender(facts('a@bank.test', other, real, forged), ours)).toMatchObject({
      authenticated: false,
      dmarc: 'none',
      reason: 'dmarc=none',
    });
    expect(authenticateSender(facts('a@bank.test', other), ours)).toMatchObject({
      verdict: 'no-result',
      authenticated: false,
      reason: `no Authentication-Results from ${ours}`,
    });
    // A field that names no authserv-id at all is nobody's: the service's own below it decides.
    expect(authenticateSender(facts('a@bank.test', '(only a comment)', forged), ours)).toMatchObject({
      verdict: 'pass',
      authenticated: true,
    });
    expect(authenticateSender(facts('a@bank.test', `${ours}; dmarc=`, forged), ours)).toMatchObject({
      verdict: 'no-result',
      authenticated: false,
      reason: `unreadable Authentication-Results from ${ours}`,
    });
  });

  it("takes no DMARC result when the service's field holds several: a line spliced into it would add one", () => {
    // A folded first line written under the service's field continues it (the SMTP side refuses that; this is the second wall).
    const spliced = `${ours};\r\n dkim=none;\r\n dmarc=none header.from=bank.test\r\n ; dmarc=pass header.from=bank.test`;
    expect(authenticateSender(facts('ceo@bank.test', spliced), ours)).toMatchObject({
      verdict: 'unverified',
      authenticated: false,
      reason: '2 conflicting dmarc results',
    });
    expect(
      authenticateSender(
        facts('ceo@bank.test', `${ours}; dmarc=pass header.from=bank.test; dmarc=pass header.from=bank.test`),
        ours,
      ),
    ).toMatchObject({ verdict: 'unverified', authenticated: false, reason: '2 dmarc results' });
    // One for another domain does not make room for a pass: still two DMARC results in one field.
    expect(
      authenticateSender(
        facts('ceo@bank.test', `${ours}; dmarc=fail header.from=evil.test; dmarc=pass header.from=bank.test`),
        ours,
      ),
    ).toMatchObject({ authenticated: false, reason: '2 conflicting dmarc results' });
    expect(
      authenticateSender(
        facts('ceo@bank.test', `${ours}; dmarc=pass; dmarc=fail; dmarc=pass header.from=bank.test`),
        ours,
      ),
    ).toMatchObject({ authenticated: false, reason: '3 conflicting dmarc results' });
    expect(
      authenticateSender(facts('ceo@bank.test', `${ours}; dmarc=pass header.from=bank.test`), ours).authenticated,
    ).toBe(true);
  });

  it("cannot tell a spliced DMARC result from the service's own when the service wrote none: the MTA's refusal is the wall", () => {
    // The residual risk docs/mail-trust.md states: a field of ours without DMARC, and one line after it.
    const spliced = `${ours};\r\n spf=pass smtp.mailfrom=x@example.org\r\n ; dmarc=pass header.from=bank.test`;
    expect(authenticateSender(facts('ceo@bank.test', spliced), ours).authenticated).toBe(true);
    expect(
      authenticateSender(facts('ceo@bank.test', `${ours}; spf=pass smtp.mailfrom=x@example.org`), ours),
    ).toMatchObject({ verdict: 'no-result', authenticated: false, reason: 'no dmarc result' });
  });

  it('does not let a pass for another domain stand for the From domain', () => {
    expect(authenticateSender(facts('a@bank.test', `${ours}; dmarc=pass header.from=example.org`), ours)).toMatchObject(
      { verdict: 'no-result', authenticated: false, reason: 'dmarc result for another domain' },
    );
    // A result that names no domain speaks for From, the only domain DMARC evaluates.
    expect(authenticateSender(facts('a@bank.test', `${ours}; dmarc=pass`), ours).authenticated).toBe(true);
    expect(
      authenticateSender(facts('a@sub.bank.test', `${ours}; dmarc=pass header.from=Sub.Bank.Test.`), ours)
        .authenticated,
    ).toBe(true);
    // Some services write header.from as the whole address.
    expect(
      authenticateSender(facts('a@bank.test', `${ours}; dmarc=pass header.from=ceo.office@bank.test`), ours)
        .authenticated,
    ).toBe(true);
    expect(
      authenticateSender(facts('a@bank.test', `${ours}; dmarc=pass header.from=ceo@evil.test`), ours).authenticated,
    ).toBe(false);
  });

  it('does not authenticate a From with several addresses or none', () => {
    const field = `${ours}; dmarc=pass header.from=bank.test`;
    expect(authenticateSender(facts(['a@bank.test', 'b@bank.test'], field), ours)).toMatchObject({
      authenticated: false,
      reason: '2 From addresses',
    });
    expect(authenticateSender(facts([], field), ours)).toMatchObject({
      verdict: 'unverified',
      authenticated: false,
      reason: 'no From address',
    });
    const nameOnly: SenderFacts = { from: [{ name: 'Bank', email: null }], authenticationResults: [field] };
    expect(authenticateSender(nameOnly, ours)).toMatchObject({
      verdict: 'unverified',
      authenticated: false,
      reason: '1 From addresses',
    });
    expect(authenticateSender(nameOnly, ours).sender).toBeUndefined();
  });

  it('says no field of ours, not the From count, when a mail with several From addresses never came through the service', () => {
    expect(authenticateSender(facts(['a@bank.test', 'b@bank.test'], 'mx.relay.example; dmarc=pass'), ours)).toEqual({
      authservId: ours,
      verdict: 'no-result',
      authenticated: false,
      reason: `no Authentication-Results from ${ours}`,
    });
  });
});

describe('judgeDomain', () => {
  it('never passes a field read for no From domain, not even a DMARC pass that names no domain', () => {
    for (const field of [`${ours}; dmarc=pass`, `${ours}; dmarc=pass header.from=bank.test`]) {
      expect(judgeDomain([field], ours, undefined)).toEqual({
        verdict: 'unverified',
        authenticated: false,
        results: parseAuthenticationResults(field)?.results,
      });
    }
    expect(judgeDomain([`${ours}; dmarc=pass`], ours, 'bank.test')).toMatchObject({ verdict: 'pass' });
  });
});

describe('senderFactsOf with authenticateSender', () => {
  it('reads the Email properties and answers yes only for a DMARC pass under the given authserv-id', () => {
    const email = {
      id: 'M1',
      from: [{ name: 'Ana', email: 'ana@example.org' }],
      'header:Authentication-Results:asRaw:all': [` ${ours}; dmarc=pass header.from=example.org`],
    };
    expect(authenticateSender(senderFactsOf(email)!, ours).authenticated).toBe(true);
    expect(authenticateSender(senderFactsOf(email)!, 'other.example').authenticated).toBe(false);
    expect(senderFactsOf({ id: 'M1', from: email.from })).toBeUndefined();
    expect(senderFactsOf({ from: null, 'header:Authentication-Results:asRaw:all': [] })).toEqual({
      from: [],
      authenticationResults: [],
    });
    expect(senderFactsOf({ from: [], 'header:Authentication-Results:asRaw:all': [3] })).toBeUndefined();
    expect(senderFactsOf({ 'header:Authentication-Results:asRaw:all': [] })).toBeUndefined();
    expect(senderFactsOf({ from: 'ana@example.org', 'header:Authentication-Results:asRaw:all': [] })).toBeUndefined();
    expect(
      senderFactsOf({
        from: [null, 'ana@example.org', { email: 'ana@example.org' }],
        'header:Authentication-Results:asRaw:all': ['x'],
      }),
    ).toEqual({ from: [{ email: 'ana@example.org' }], authenticationResults: ['x'] });
  });

  it('reads the Sender too, and for the receive screen counts an answer without it as lacking facts', () => {
    const fields = { 'header:Authentication-Results:asRaw:all': [] };
    expect(senderFactsOf({ from: [], sender: [{ email: 's@evil.test' }, 7], ...fields })).toEqual({
      from: [],
      sender: [{ email: 's@evil.test' }],
      authenticationResults: [],
    });
    expect(senderFactsOf({ from: [], sender: null, ...fields }, { withSender: true })).toEqual({
      from: [],
      sender: [],
      authenticationResults: [],
    });
    expect(senderFactsOf({ from: [], ...fields }, { withSender: true })).toBeUndefined();
    expect(senderFactsOf({ from: [], sender: 's@evil.test', ...fields }, { withSender: true })).toBeUndefined();
    expect(senderFactsOf({ from: [], ...fields })).toEqual({ from: [], authenticationResults: [] });
  });
});

describe('the reading kept per message', () => {
  const pass = (domain: string) => `${ours}; dmarc=pass header.from=${domain}`;

  it('hands back the same frozen reading for the same fields, and reads other fields or another authserv-id afresh', () => {
    const first = authenticateSender(facts('a@kept.test', pass('kept.test')), ours);
    expect(Object.isFrozen(first) && Object.isFrozen(first.results)).toBe(true);
    expect(authenticateSender(facts('a@kept.test', pass('kept.test')), ours)).toBe(first);
    // The same From under a field that now says fail, or judged under another authserv-id: a reading of its own.
    const failed = authenticateSender(facts('a@kept.test', `${ours}; dmarc=fail header.from=kept.test`), ours);
    expect(failed).toMatchObject({ verdict: 'unverified', authenticated: false });
    expect(authenticateSender(facts('a@kept.test', pass('kept.test')), 'other.test')).toMatchObject({
      verdict: 'no-result',
    });
    expect(authenticateSender(facts('b@kept.test', pass('kept.test')), ours).sender?.address).toBe('b@kept.test');
  });

  it('keeps at most its bound of readings, and none of a field longer than its key bound', () => {
    const { entries, keyChars } = senderAuthenticationCacheBounds;
    const oldest = facts('oldest@bound.test', pass('bound.test'));
    const firstRead = authenticateSender(oldest, ours);
    for (let i = 0; i < entries + 50; i++) authenticateSender(facts(`n${i}@bound.test`, pass('bound.test')), ours);
    expect(senderAuthenticationCacheSize()).toBe(entries);
    // The oldest was dropped: read again it is a new object, kept from then on.
    const again = authenticateSender(oldest, ours);
    expect(again).not.toBe(firstRead);
    expect(again).toEqual(firstRead);
    expect(authenticateSender(oldest, ours)).toBe(again);
    const huge = facts('h@bound.test', `${pass('bound.test')} (${'x'.repeat(keyChars)})`);
    const once = authenticateSender(huge, ours);
    expect(once).toMatchObject({ verdict: 'pass' });
    expect(authenticateSender(huge, ours)).not.toBe(once);
    expect(senderAuthenticationCacheSize()).toBe(entries);
  });
});
