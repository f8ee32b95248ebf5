import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  forgetAllSecrets,
  redactCredentialEcho,
  redactDeep,
  redactSecrets,
  rememberSecret,
} from '../../../src/redact.js';

// Issue 10 item 3: one redactor that knows the secrets in play and the shapes of secrets.
const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const token = `${part({ alg: 'ES256', typ: 'JWT' })}.${part({ sub: 'bot@x.test', exp: 1 })}.Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eA`;

describe('redactSecrets', () => {
  // Each test starts knowing no secret, as a new process does: a key remembered by one test shares
  // a 12-character stretch with another's text (a shuffled run caught that order dependency).
  beforeEach(() => {
    forgetAllSecrets();
  });

  it('masks whole JWTs, their header or payload alone, Authorization echoes and amk_ keys in text a server sent about credentials', () => {
    const [header, payload] = token.split('.');
    const out = redactCredentialEcho(
      `Authorization: Bearer ${token}; parts ${header} and ${payload}; key amk_0123456789abcdef`,
    );
    expect(out).not.toContain(header);
    expect(out).not.toContain(payload);
    expect(out).not.toContain('amk_0123');
    expect(out).toContain('Bearer <redacted>');
  });

  it('masks a known secret and any long stretch of it, wherever it appears', () => {
    const apiKey = 'Q1w2E3r4T5y6U7i8O9p0AsDfGhJkL';
    rememberSecret(apiKey);
    const signature = token.split('.')[2] ?? '';
    rememberSecret(token);
    const out = redactSecrets(`key=${apiKey.slice(3, 20)} / sig ${signature} / whole ${apiKey}`);
    expect(out).not.toContain(apiKey.slice(3, 15));
    expect(out).not.toContain(signature.slice(0, 12));
    expect(out).toContain('key=<secret redacted>');
  });

  it('leaves ordinary ids and text alone', () => {
    const text = 'Email M1234abcd in mailbox Inbox, blob G5f3a9c2e1b0d4e7f, 2026-11-23T10:00:00Z';
    expect(redactSecrets(text)).toBe(text);
  });

  it('leaves ordinary words about bearers and api keys alone, in mail and in server text', () => {
    const sentences = [
      'Bearer of good news',
      'The bearer for JMAP is here. api_key: see the docs.',
      'Use the Bearer scheme; api_key = your key',
    ];
    rememberSecret('amk_a_real_key_0123456789');
    for (const sentence of sentences) {
      expect(redactSecrets(sentence)).toBe(sentence);
      expect(redactCredentialEcho(sentence)).toBe(sentence);
    }
  });

  it("shows a JWT that is not this process's own exactly, even when it shares the issuer's header with one that is", () => {
    rememberSecret(token);
    const [header] = token.split('.');
    const foreign = `${header}.${part({ sub: 'someone@else.test', exp: 2 })}.c29tZW9uZS1lbHNlcy1zaWduYXR1cmU`;
    expect(redactSecrets(`quoted: ${foreign}`)).toBe(`quoted: ${foreign}`);
    expect(redactSecrets(`ours: ${token}`)).toBe('ours: <secret redacted>');
  });

  it('redacts every string of a structure, keys kept', () => {
    const out = redactDeep({ detail: [`echo ${token}`], n: 1 }, redactCredentialEcho);
    expect(out.n).toBe(1);
    expect(out.detail[0]).toMatch(/^echo <(jwt|secret) redacted>$/);
  });

  it('after a week of capability rotations still masks the apiKey and a piece of the newest token', () => {
    const apiKey = 'amk_rotation_check_5f3a9c2e1b0d';
    rememberSecret(apiKey);
    let newestSignature = '';
    // 5040 rotations: one capability every 2 minutes for a week, in a long-running MCP server.
    for (let i = 0; i < 5040; i += 1) {
      newestSignature = createHash('sha256').update(`rotation ${i}`).digest('base64url');
      rememberSecret(`eyJhbGciOiJFZERTQSJ9.eyJuIjo${i}fQ.${newestSignature}`);
    }
    const out = redactSecrets(`key ${apiKey.slice(4, 20)} and ${newestSignature}`);
    expect(out).not.toContain(apiKey.slice(4, 20));
    expect(out).not.toContain(newestSignature);
  });
});
