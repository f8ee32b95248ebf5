import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  containsKnownSecret,
  forgetAllSecrets,
  maskApiKey,
  redactCredentialEcho,
  redactDeep,
  redactSecrets,
  rememberSecret,
} from '../../src/redact.js';

/**
 * The redactor's edges: which secrets it learns, how much of one identifies it, how many tokens it
 * keeps, and exactly what it masks in text a server sent about credentials. test/unit/http/redact.test.ts
 * has the broader cases; each test here starts, as a new process does, knowing no secret.
 */

const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const hash = (text: string): string => createHash('sha256').update(text).digest('base64url');
/** A token of one issuer: the same header, a payload and a signature no other token shares a stretch of. */
const token = (n: number): string =>
  `${part({ alg: 'ES256', typ: 'JWT' })}.${part({ h: hash(`payload ${n}`) })}.${hash(`signature ${n}`)}`;

beforeEach(() => {
  forgetAllSecrets();
});

describe('rememberSecret', () => {
  it('learns a secret of 12 characters or more, up to 16 KiB, and ignores anything shorter, longer or absent', () => {
    rememberSecret(undefined);
    rememberSecret('');
    rememberSecret('short-11chr');
    expect(containsKnownSecret('short-11chr')).toBe(false);
    expect(redactSecrets('x short-11chr y')).toBe('x short-11chr y');
    rememberSecret('exactly-12ch');
    expect(redactSecrets('x exactly-12ch y')).toBe('x <secret redacted> y');
    const huge = 'h'.repeat(16_385);
    rememberSecret(huge);
    expect(containsKnownSecret(huge)).toBe(false);
    const largest = `${'k'.repeat(16_383)}L`;
    rememberSecret(largest);
    expect(containsKnownSecret(largest.slice(-12))).toBe(true);
  });

  it('recognises a secret by any 12 characters of it, not by 11', () => {
    const secret = 'Zq8Wm3Lp0Rt6Yv2Nb5Xc';
    rememberSecret(secret);
    expect(containsKnownSecret(`said ${secret.slice(5, 17)} here`)).toBe(true);
    expect(containsKnownSecret(`said ${secret.slice(5, 16)} here`)).toBe(false);
    expect(redactSecrets(`a ${secret.slice(0, 12)} b ${secret.slice(8)} c`)).toBe(
      'a <secret redacted> b <secret redacted> c',
    );
    expect(redactSecrets(`a ${secret.slice(0, 11)} b`)).toBe(`a ${secret.slice(0, 11)} b`);
  });

  it('knows nothing until a secret is remembered, and forgets all at once', () => {
    expect(containsKnownSecret('anything at all 0123456789')).toBe(false);
    rememberSecret('amk_forget_me_0123456789');
    expect(containsKnownSecret('amk_forget_me_0123456789')).toBe(true);
    forgetAllSecrets();
    expect(containsKnownSecret('amk_forget_me_0123456789')).toBe(false);
    expect(redactSecrets('amk_forget_me_0123456789')).toBe('amk_forget_me_0123456789');
  });

  it('keeps the 32 newest tokens and every apiKey, forgetting older tokens', () => {
    const apiKey = 'amk_kept_for_ever_0123456789';
    rememberSecret(apiKey);
    const tokens = Array.from({ length: 40 }, (_, i) => token(i));
    for (const t of tokens) rememberSecret(t);
    const signature = (t: string): string => t.split('.')[2]!;
    for (const [i, t] of tokens.entries()) expect(containsKnownSecret(signature(t)), `token ${i}`).toBe(i >= 8);
    expect(containsKnownSecret(apiKey)).toBe(true);
  });

  it('still masks a stretch two secrets share after one of them is forgotten', () => {
    const shared = 'SHAREDstretchOF20chr';
    const apiKey = `amk_${shared}_first`;
    rememberSecret(apiKey);
    const withShared = `${part({ alg: 'ES256' })}.${part({ n: 1 })}.${shared}tail`;
    rememberSecret(withShared);
    for (let i = 0; i < 32; i += 1) rememberSecret(token(100 + i));
    // The token is forgotten; the apiKey, which holds the same stretch, is not.
    expect(redactSecrets(`echo ${shared}`)).toBe('echo <secret redacted>');
  });

  it("forgets a forgotten token's own stretches", () => {
    const first = token(1);
    rememberSecret(first);
    for (let i = 0; i < 32; i += 1) rememberSecret(token(200 + i));
    expect(redactSecrets(`quoted ${first}`)).toBe(`quoted ${first}`);
  });

  it('indexes a JWT without its header, so another token of the same issuer is shown exactly', () => {
    const ours = token(7);
    rememberSecret(ours);
    const header = ours.split('.')[0]!;
    expect(containsKnownSecret(`${header}.e30.c2ln`)).toBe(false);
    expect(containsKnownSecret(ours.split('.')[1]!)).toBe(true);
  });

  it('learns extra secrets passed to one redaction for the later ones too', () => {
    expect(redactSecrets('the key amk_passed_in_0123456789', ['amk_passed_in_0123456789'])).toBe(
      'the key <secret redacted>',
    );
    expect(redactSecrets('again amk_passed_in_0123456789')).toBe('again <secret redacted>');
  });
});

describe('maskApiKey', () => {
  it('shows four characters at each end of a long key and nothing of a short one', () => {
    expect(maskApiKey('amk_0123456789abcdef')).toBe('amk_…cdef');
    expect(maskApiKey('123456789')).toBe('1234…6789');
    expect(maskApiKey('12345678')).toBe('****');
    expect(maskApiKey('')).toBe('****');
  });
});

describe('redactCredentialEcho', () => {
  it('masks a credential after Bearer or Basic from 16 characters, and leaves shorter words alone', () => {
    expect(redactCredentialEcho('Authorization: Bearer abcdefghijklmnop')).toBe('Authorization: Bearer <redacted>');
    expect(redactCredentialEcho('authorization: basic dXNlcjpwYXNzd29yZA==')).toBe('authorization: basic <redacted>');
    expect(redactCredentialEcho('Bearer abcdefghijklmno')).toBe('Bearer abcdefghijklmno');
  });

  it('masks the value of an api_key field from 12 characters, keeping the field', () => {
    expect(redactCredentialEcho('{"apiKey": "k3y-value-12ch"}')).toBe('{"apiKey": "<redacted>"}');
    expect(redactCredentialEcho('api_key=k3y-value-12ch&x=1')).toBe('api_key=<redacted>&x=1');
    expect(redactCredentialEcho('APIKEY: k3y-value-12ch')).toBe('APIKEY: <redacted>');
    expect(redactCredentialEcho('api_key=short-11ch')).toBe('api_key=short-11ch');
  });

  it('masks a credential after several spaces or a tab after the scheme, and an api_key field spaced around its colon', () => {
    expect(redactCredentialEcho('Bearer  abcdefghijklmnop')).toBe('Bearer  <redacted>');
    expect(redactCredentialEcho('Basic\tabcdefghijklmnop')).toBe('Basic\t<redacted>');
    expect(redactCredentialEcho('"api_key" :  "k3y-value-12ch"')).toBe('"api_key" :  "<redacted>"');
  });

  it('masks OAuth refresh tokens (amr_) and client secrets (amcs_) from six characters after the prefix', () => {
    expect(redactCredentialEcho('refresh amr_abcdef and secret amcs_A1-b_2')).toBe(
      'refresh <token redacted> and secret <token redacted>',
    );
    expect(redactCredentialEcho('short amr_abcde, other xamr_abcdefgh')).toBe('short amr_abcde, other xamr_abcdefgh');
  });

  it('masks anything shaped like a JWT or an amk_ key', () => {
    expect(redactCredentialEcho('got eyJhbGciOiJI.eyJzdWIi.c2ln here')).toBe('got <jwt redacted> here');
    expect(redactCredentialEcho('got eyJhbGciOi alone')).toBe('got eyJhbGciOi alone');
    expect(redactCredentialEcho('got eyJhbGciOiJ alone')).toBe('got <jwt redacted> alone');
    expect(redactCredentialEcho('key amk_abcdef, short amk_abcde')).toBe('key <apiKey redacted>, short amk_abcde');
  });

  it('masks known secrets first, with their own marker', () => {
    rememberSecret('plainsecretvalue');
    expect(redactCredentialEcho('echo plainsecretvalue')).toBe('echo <secret redacted>');
  });
});

describe('finding a known stretch', () => {
  // What is masked is exactly what comparing every 12-character window of every run with the known
  // secrets' fragments finds, at any offset, across runs, in any alphabet the runs allow, and it forgets as
  // it learns: a faster scan must keep to this reference.
  const alphabet = 'ABCXYZabcxyz0189_.+/-';
  const runsOf = (text: string): string[] => text.match(/[A-Za-z0-9_.+/-]{12,}/g) ?? [];
  const naive = (text: string, secrets: readonly string[]): boolean => {
    const fragments = new Set(
      secrets.flatMap((s) => {
        const body = /^eyJ[^.]*\.(.+)$/.exec(s)?.[1] ?? s;
        return Array.from({ length: Math.max(0, body.length - 11) }, (_, i) => body.slice(i, i + 12));
      }),
    );
    return runsOf(text).some((run) =>
      Array.from({ length: run.length - 11 }, (_, i) => run.slice(i, i + 12)).some((w) => fragments.has(w)),
    );
  };
  let seed = 7;
  // A linear congruential generator's low bits cycle quickly: its upper 16 bits are the number.
  const random = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n;
  const word = (length: number): string => Array.from({ length }, () => alphabet[random(alphabet.length)]).join('');

  it('masks what comparing every window would, for 2,000 texts with and without pieces of the secrets', () => {
    const secrets = [word(40), word(12), `eyJhbGciOiJFUzI1NiJ9.${word(30)}.${word(20)}`];
    for (const secret of secrets) rememberSecret(secret);
    let found = 0;
    for (let i = 0; i < 2_000; i++) {
      const source = secrets[random(secrets.length)] ?? '';
      const from = random(Math.max(1, source.length - 12));
      const piece = source.slice(from, from + 12 + random(4));
      const text = [word(random(30)), random(2) === 0 ? piece : word(12), word(random(30))].join(
        random(3) === 0 ? ' ' : '',
      );
      const expected = naive(text, secrets);
      found += expected ? 1 : 0;
      expect(containsKnownSecret(text), text).toBe(expected);
      expect(redactSecrets(text) !== text, text).toBe(expected);
    }
    expect(found, 'both kinds of text were met').toBeGreaterThan(300);
    forgetAllSecrets();
    rememberSecret(secrets[1]);
    expect(containsKnownSecret(`x${secrets[0] ?? ''}y`)).toBe(naive(`x${secrets[0] ?? ''}y`, [secrets[1] ?? '']));
  });
});

describe('redactDeep', () => {
  it('redacts every string of nested arrays and objects, leaving keys and other values', () => {
    rememberSecret('amk_deep_secret_0123456789');
    const value = {
      amk_deep_secret_0123456789: [
        'amk_deep_secret_0123456789',
        1,
        null,
        true,
        { inner: 'x amk_deep_secret_0123456789' },
      ],
      n: 2,
    };
    expect(redactDeep(value)).toEqual({
      amk_deep_secret_0123456789: ['<secret redacted>', 1, null, true, { inner: 'x <secret redacted>' }],
      n: 2,
    });
    expect(redactDeep('amk_deep_secret_0123456789')).toBe('<secret redacted>');
    expect(redactDeep(undefined)).toBeUndefined();
    expect(redactDeep({ s: 'eyJhbGciOiJ.x' }, redactCredentialEcho)).toEqual({ s: '<jwt redacted>' });
  });

  it('gives back a value with no secret as it is, and copies only what changed, leaving the original whole', () => {
    rememberSecret('amk_deep_secret_0123456789');
    const clean = { list: [{ a: 'plain' }, { b: ['x', 2] }], n: 1 };
    expect(redactDeep(clean)).toBe(clean);
    const secret = 'amk_deep_secret_0123456789';
    const dirty = { first: { a: 'plain' }, list: ['ok', { k: secret }, 'after', secret], last: secret };
    const before = structuredClone(dirty);
    const shown = redactDeep(dirty);
    const masked = '<secret redacted>';
    expect(shown).toEqual({ first: { a: 'plain' }, list: ['ok', { k: masked }, 'after', masked], last: masked });
    expect(dirty).toEqual(before);
    expect(shown.first).toBe(dirty.first);
    // A key named __proto__ stays an own field of the copy, as JSON.parse made it.
    const parsed = JSON.parse('{"__proto__": {"k": "amk_deep_secret_0123456789"}, "z": "amk_deep_secret_0123456789"}');
    expect(JSON.stringify(redactDeep(parsed))).toBe('{"__proto__":{"k":"<secret redacted>"},"z":"<secret redacted>"}');
  });

  it('copies any object that is not plain, so a toJSON of its own says nothing the redactor did not see', () => {
    rememberSecret('amk_deep_secret_0123456789');
    const value = { link: new URL('https://x.example/?key=amk_deep_secret_0123456789'), when: new Date(0) };
    expect(JSON.stringify(redactDeep(value))).toBe('{"link":{},"when":{}}');
    const polluted = Object.create({ inherited: 'amk_deep_secret_0123456789' }) as Record<string, unknown>;
    polluted.own = 'amk_deep_secret_0123456789';
    expect(redactDeep({ polluted })).toEqual({ polluted: { own: '<secret redacted>' } });
  });
});
