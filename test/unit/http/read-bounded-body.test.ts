import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BodyTooLarge, readBoundedBody } from '../../../src/http/read-bounded-body.js';

/** A response whose body arrives in the given chunks, with a declared length when given. */
function response(
  chunks: string[],
  declared?: number,
): { response: Response; cancelled: () => boolean; pulled: () => number } {
  let cancelled = false;
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[pulled];
      pulled += 1;
      if (next === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(next));
    },
    cancel() {
      cancelled = true;
    },
  });
  const headers = new Headers(declared === undefined ? {} : { 'content-length': String(declared) });
  return { response: new Response(body, { headers }), cancelled: () => cancelled, pulled: () => pulled };
}

describe('readBoundedBody', () => {
  it('reads a body of exactly the limit, in order', async () => {
    const { response: r } = response(['ab', 'cd', 'e']);
    const { body, size } = await readBoundedBody(r, 5, { kind: 'memory' });
    expect(size).toBe(5);
    expect(body.toString()).toBe('abcde');
  });

  it('stops one byte past the limit and cancels the stream', async () => {
    const source = response(['ab', 'cd', 'ef', 'never read']);
    const error = await readBoundedBody(source.response, 5, { kind: 'memory' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyTooLarge);
    expect((error as BodyTooLarge).limitBytes).toBe(5);
    expect((error as Error).message).toBe('body exceeds 5 bytes');
    expect(source.cancelled()).toBe(true);
    expect(source.pulled()).toBeLessThan(4);
  });

  it('refuses a declared length over the limit before reading anything', async () => {
    const source = response(['abcdef'], 6);
    await expect(readBoundedBody(source.response, 5, { kind: 'memory' })).rejects.toBeInstanceOf(BodyTooLarge);
    expect(source.cancelled()).toBe(true);
    const exact = response(['abcde'], 5);
    expect((await readBoundedBody(exact.response, 5, { kind: 'memory' })).size).toBe(5);
    // The declared length alone decides: a body that would have fit is not read.
    const short = response(['abc'], 6);
    await expect(readBoundedBody(short.response, 5, { kind: 'memory' })).rejects.toBeInstanceOf(BodyTooLarge);
    expect(short.cancelled()).toBe(true);
  });

  it('reads on when the declared length is missing or unreadable, still under the cap', async () => {
    for (const declared of [undefined, 'abc', '']) {
      const chunks = new TextEncoder().encode('abcd');
      const headers = new Headers(declared === undefined ? {} : { 'content-length': declared });
      const r = new Response(new Blob([chunks]).stream(), { headers });
      expect((await readBoundedBody(r, 5, { kind: 'memory' })).body.toString(), String(declared)).toBe('abcd');
    }
  });

  it('gives the stream back when done, read whole or cut off', async () => {
    const whole = response(['ab']);
    await readBoundedBody(whole.response, 5, { kind: 'memory' });
    expect(whole.response.body!.locked).toBe(false);
    const cut = response(['abcdef']);
    await readBoundedBody(cut.response, 5, { kind: 'memory' }).catch(() => undefined);
    expect(cut.response.body!.locked).toBe(false);
  });

  it('gives an empty body for a response without one', async () => {
    const { body, size } = await readBoundedBody(new Response(null, { status: 204 }), 5, { kind: 'memory' });
    expect(size).toBe(0);
    expect(body.length).toBe(0);
  });

  it('writes a download at its offsets over whatever the file held, and keeps nothing in memory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bounded-body-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'blob');
    const handle = await open(path, 'w+');
    onTestFinished(() => handle.close());
    await handle.write('an older, longer content');
    const { body, size } = await readBoundedBody(response(['new', ' bytes']).response, 100, { kind: 'file', handle });
    expect(size).toBe(9);
    expect(body.length).toBe(0);
    expect(await readFile(path, 'utf8')).toBe('new bytes');
  });
});
