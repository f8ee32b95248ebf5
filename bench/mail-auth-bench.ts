import { generateKeyPairSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { PassThrough, Readable } from 'node:stream';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { createMailAuthority } from '../sandbox/src/mail-auth/mail-authority.js';
import type { BenchSection } from './bench-section.js';

const chunkBytes = 64 * 1024;
const bodyBytes = 8 * 1024 * 1024;

/** A message signed by example.org whose body is `body`, and the record that verifies it. */
async function signedMessage(body: string): Promise<{ raw: Buffer; record: string }> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const signing = {
    signingDomain: 'example.org',
    selector: 's',
    privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    algorithm: 'ed25519-sha256',
    canonicalization: 'relaxed/relaxed',
  };
  const raw = Buffer.from(`From: a@example.org\r\nTo: b@agent-mailbox.test\r\nSubject: bench\r\n\r\n${body}`);
  // Without signTime mailauth reads the clock twice and may sign a t= other than the one it writes.
  const { signatures } = await dkimSign(Readable.from([raw]), {
    ...signing,
    signTime: new Date(),
    signatureData: [signing],
  });
  const key = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
  return { raw: Buffer.concat([Buffer.from(signatures), raw]), record: `v=DKIM1; k=ed25519; p=${key}` };
}

/** mailauth's verifier fed each 64 KiB chunk as SMTP delivers it (how the listener would use it plainly). */
async function plainVerify(raw: Buffer, record: string): Promise<number> {
  const input = new PassThrough();
  const started = performance.now();
  const verifying = dkimVerify(input, { resolver: async () => [[record]] });
  for (let at = 0; at < raw.length; at += chunkBytes) {
    if (!input.write(raw.subarray(at, at + chunkBytes))) await new Promise((resolve) => input.once('drain', resolve));
  }
  input.end();
  const result = await verifying;
  if (result.results[0]?.status.result !== 'pass') throw new Error('the plain verifier did not pass the message');
  return performance.now() - started;
}

/** The sandbox's check fed the same chunks: lines go to the verifier whole. */
async function sandboxCheck(raw: Buffer, record: string): Promise<number> {
  const zone = {
    TXT: new Map([['s._domainkey.example.org', [[record]]]]),
    MX: new Map(),
    A: new Map(),
    AAAA: new Map(),
    PTR: new Map(),
  };
  const authority = await createMailAuthority({
    domain: 'agent-mailbox.test',
    authservId: 'agent-mailbox.test',
    dns: zone,
  });
  const started = performance.now();
  const check = authority.checkInbound({ ip: '127.0.0.1', helo: 'client.example.org', sender: 'a@example.org' });
  for (let at = 0; at < raw.length; at += chunkBytes) {
    if (!check.write(raw.subarray(at, at + chunkBytes))) await new Promise<void>((resolve) => check.onDrain(resolve));
  }
  const outcome = await check.finish();
  if (outcome.kind !== 'checked' || outcome.results[0]?.result !== 'pass')
    throw new Error('the sandbox check did not pass the message');
  return performance.now() - started;
}

/**
 * DKIM verification of an 8 MB body arriving in 64 KiB chunks: one line (a sender's cheapest way
 * to make mailauth's relaxed body hash rescan its unfinished line at every chunk) against
 * 998-character lines, each through mailauth fed plainly and through the sandbox's check.
 */
export const mailAuthBenchSection: BenchSection = {
  title: 'Sender authentication: DKIM over an 8 MB body in 64 KiB chunks',
  async run() {
    const lines: string[] = [];
    for (const [label, body] of [
      ['998-character lines', `${'y'.repeat(998)}\r\n`.repeat(Math.floor(bodyBytes / 1000))],
      ['one line', 'x'.repeat(bodyBytes)],
    ] as const) {
      const { raw, record } = await signedMessage(body);
      // Alternated, best of three each: the machine is shared and the first runs also warm the JIT.
      let plain = Infinity;
      let ours = Infinity;
      for (let round = 0; round < 3; round += 1) {
        plain = Math.min(plain, await plainVerify(raw, record));
        ours = Math.min(ours, await sandboxCheck(raw, record));
      }
      lines.push(
        `${label.padEnd(20)} mailauth fed chunks ${plain.toFixed(0).padStart(6)} ms   sandbox check ${ours.toFixed(0).padStart(5)} ms   ratio ${(plain / ours).toFixed(1)}×`,
      );
    }
    return lines.join('\n');
  },
};
