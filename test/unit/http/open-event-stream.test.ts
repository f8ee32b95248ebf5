import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { EventStreamFailure, type EventStream } from '../../../src/http/event-stream.js';
import { openEventStream, type EventStreamOptions } from '../../../src/http/open-event-stream.js';
import { closedPort, scriptedServer } from '../../helpers/scripted-http-server.js';

/**
 * The push stream's reader (RFC 8620 §7.3 over WHATWG server-sent events) against real streaming
 * servers: how events are framed, and every way a stream ends — each a failure the caller can fall
 * back from (polling), never a hang and never unbounded memory.
 */

const limits = { connectTimeoutMs: 2_000, idleTimeoutMs: 2_000, maxEventBytes: 1_000, maxTotalBytes: 100_000 };

function options(extra: Partial<EventStreamOptions> = {}): EventStreamOptions {
  return { headers: { authorization: 'Bearer t' }, signal: new AbortController().signal, ...limits, ...extra };
}

/** A server that sends the head of an event stream and then whatever `script` writes. */
async function streaming(script: (res: ServerResponse) => void, contentType = 'text/event-stream; charset=utf-8') {
  return scriptedServer((_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
    res.flushHeaders();
    script(res);
  });
}

async function failureOf(step: Promise<unknown>): Promise<EventStreamFailure> {
  const error = await step.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EventStreamFailure);
  return error as EventStreamFailure;
}

async function events(stream: EventStream, count: number): Promise<Array<{ event: string; data: string }>> {
  const out = [];
  for (let i = 0; i < count; i += 1) out.push(await stream.next());
  return out;
}

describe('openEventStream: framing', () => {
  it("asks for an event stream with the caller's headers, by GET", async () => {
    const server = await streaming((res) => res.write('data: x\n\n'));
    const stream = await openEventStream(server.url, options());
    await stream.next();
    stream.close();
    expect(server.requests[0]).toMatchObject({
      method: 'GET',
      headers: { accept: 'text/event-stream', authorization: 'Bearer t' },
    });
  });

  it('joins data lines, takes the event type, and defaults the type to message', async () => {
    const server = await streaming((res) =>
      res.write('event: state\ndata: {"a":1}\ndata: second line\n\ndata: plain\n\n'),
    );
    const stream = await openEventStream(server.url, options());
    expect(await events(stream, 2)).toEqual([
      { event: 'state', data: '{"a":1}\nsecond line' },
      { event: 'message', data: 'plain' },
    ]);
    stream.close();
  });

  it('reads LF, CRLF and CR line ends, even a CRLF split across two chunks', async () => {
    const server = await streaming((res) => {
      res.write('data: one\r\n\r\ndata: two\r\rdata: three\r');
      setTimeout(() => res.write('\n\r\n'), 50);
    });
    const stream = await openEventStream(server.url, options());
    expect((await events(stream, 3)).map((e) => e.data)).toEqual(['one', 'two', 'three']);
    stream.close();
  });

  it("skips comments, unknown fields and blank lines without data; keeps a value's colons and all but one leading space", async () => {
    const server = await streaming((res) =>
      res.write(': ping\n\nretry: 5\nid: 7\n\nevent: e\ndata\n\ndata:  two spaces: and a colon\n\n'),
    );
    const stream = await openEventStream(server.url, options());
    expect(await events(stream, 2)).toEqual([
      { event: 'e', data: '' },
      { event: 'message', data: ' two spaces: and a colon' },
    ]);
    stream.close();
  });

  it('decodes UTF-8 split across chunks', async () => {
    const bytes = Buffer.from('data: héllo 🚀\n\n');
    const server = await streaming((res) => {
      res.write(bytes.subarray(0, 8));
      setTimeout(() => res.write(bytes.subarray(8)), 30);
    });
    const stream = await openEventStream(server.url, options());
    expect((await stream.next()).data).toBe('héllo 🚀');
    stream.close();
  });
});

describe('openEventStream: how a stream fails', () => {
  it('fails with connect_timeout when no head comes in time', async () => {
    const server = await scriptedServer(() => undefined);
    const started = Date.now();
    const failure = await failureOf(openEventStream(server.url, options({ connectTimeoutMs: 200 })));
    expect(failure.kind).toBe('connect_timeout');
    expect(failure.message).toBe('no answer within 200 ms');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('fails with status on an answer other than 200, and with not_event_stream on another content type', async () => {
    const refused = await scriptedServer((_req, res) =>
      res.writeHead(401, { 'content-type': 'text/event-stream' }).end('no'),
    );
    const status = await failureOf(openEventStream(refused.url, options()));
    expect(status).toMatchObject({ kind: 'status', status: 401, message: 'HTTP 401' });
    const json = await scriptedServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    expect(await failureOf(openEventStream(json.url, options()))).toMatchObject({
      kind: 'not_event_stream',
      message: 'content-type application/json',
    });
    const bare = await scriptedServer((_req, res) => {
      res.removeHeader('content-type');
      res.writeHead(200).end('data: x\n\n');
    });
    expect(await failureOf(openEventStream(bare.url, options()))).toMatchObject({
      kind: 'not_event_stream',
      message: 'content-type missing',
    });
  });

  it('accepts the content type in any case', async () => {
    const server = await streaming((res) => res.write('data: x\n\n'), 'Text/Event-Stream');
    const stream = await openEventStream(server.url, options());
    expect((await stream.next()).data).toBe('x');
    stream.close();
  });

  it('fails with network when nothing listens', async () => {
    expect((await failureOf(openEventStream(`http://127.0.0.1:${await closedPort()}/`, options()))).kind).toBe(
      'network',
    );
  });

  it('fails with idle after a silence, while pings keep a quiet stream alive', async () => {
    const server = await streaming((res) => {
      let pings = 0;
      const timer = setInterval(() => {
        pings += 1;
        res.write(pings < 6 ? ': ping\n\n' : '');
        if (pings === 6) {
          res.write('data: after pings\n\n');
          clearInterval(timer);
        }
      }, 60);
      res.on('close', () => clearInterval(timer));
    });
    const stream = await openEventStream(server.url, options({ idleTimeoutMs: 250 }));
    expect((await stream.next()).data).toBe('after pings');
    const started = Date.now();
    const failure = await failureOf(stream.next());
    expect(failure).toMatchObject({ kind: 'idle', message: 'nothing received for 250 ms' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
  });

  it('fails with event_too_large when one event grows past its cap, counted per event', async () => {
    const small = 'x'.repeat(300);
    const server = await streaming((res) => {
      const pieces = [
        ...Array.from({ length: 5 }, () => `data: ${small}\n\n`),
        `data: ${'y'.repeat(600)}`,
        'y'.repeat(600),
        'y'.repeat(600),
      ];
      const timer = setInterval(() => (pieces.length > 0 ? res.write(pieces.shift()!) : clearInterval(timer)), 20);
      res.on('close', () => clearInterval(timer));
    });
    const stream = await openEventStream(server.url, options());
    // Five events of 300 bytes pass although together they are over the 1000-byte cap of one event.
    expect((await events(stream, 5)).map((e) => e.data)).toEqual([small, small, small, small, small]);
    expect(await failureOf(stream.next())).toMatchObject({
      kind: 'event_too_large',
      message: 'one event passed 1000 bytes',
    });
  });

  it('fails with total_too_large when the stream passes its lifetime cap', async () => {
    const server = await streaming((res) => {
      for (let i = 0; i < 20; i += 1) res.write(`data: ${'z'.repeat(90)}\n\n`);
    });
    const stream = await openEventStream(server.url, options({ maxTotalBytes: 1_000 }));
    let delivered = 0;
    const failure = await (async () => {
      for (;;) {
        try {
          await stream.next();
          delivered += 1;
        } catch (error) {
          return error as EventStreamFailure;
        }
      }
    })();
    expect(failure).toMatchObject({ kind: 'total_too_large', message: 'more than 1000 bytes in all' });
    expect(delivered).toBeLessThanOrEqual(10);
    expect(delivered).toBeGreaterThanOrEqual(9);
  });

  it('fails with ended when the server ends the stream, and network when it breaks it', async () => {
    const ends = await streaming((res) => res.end('data: last\n\n'));
    const stream = await openEventStream(ends.url, options());
    expect((await stream.next()).data).toBe('last');
    expect(await failureOf(stream.next())).toMatchObject({ kind: 'ended', message: 'the server ended the stream' });

    const breaks = await streaming((res) => setTimeout(() => res.socket?.resetAndDestroy(), 50));
    const broken = await openEventStream(breaks.url, options());
    expect((await failureOf(broken.next())).kind).toBe('network');
  });

  it('fails with cancelled when the caller cancels before, while opening, or while waiting for an event', async () => {
    const server = await streaming(() => undefined);
    expect((await failureOf(openEventStream(server.url, options({ signal: AbortSignal.abort() })))).kind).toBe(
      'cancelled',
    );
    expect(server.hits()).toBe(0);

    const hung = await scriptedServer(() => undefined);
    const opening = new AbortController();
    const open = openEventStream(hung.url, options({ signal: opening.signal }));
    setTimeout(() => opening.abort(), 50);
    expect((await failureOf(open)).kind).toBe('cancelled');

    const waiting = new AbortController();
    const stream = await openEventStream(server.url, options({ signal: waiting.signal }));
    const next = stream.next();
    setTimeout(() => waiting.abort(), 50);
    expect((await failureOf(next)).kind).toBe('cancelled');
  });

  it('close() ends the connection and the next read', async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const server = await streaming((res) => res.on('close', closed));
    const stream = await openEventStream(server.url, options());
    stream.close();
    await connectionClosed;
    expect((await failureOf(stream.next())).kind).not.toBe('idle');
  });
});

describe('openEventStream: where the credential goes', () => {
  it('refuses a redirect to another origin with redirect_refused, and the other origin hears nothing', async () => {
    const other = await streaming((res) => res.write('data: stolen\n\n'));
    for (const status of [301, 302, 303, 307, 308]) {
      const first = await scriptedServer((_req, res) => res.writeHead(status, { location: `${other.url}/es` }).end());
      const failure = await failureOf(openEventStream(`${first.url}/es`, options()));
      expect(failure.kind, String(status)).toBe('redirect_refused');
      expect(failure.message).toContain(`to ${other.url} refused`);
    }
    expect(other.hits()).toBe(0);
  });

  it('keeps a stream open past the head deadline once the head came', async () => {
    const server = await streaming((res) => {
      const timer = setTimeout(() => res.write('data: late\n\n'), 400);
      res.on('close', () => clearTimeout(timer));
    });
    const stream = await openEventStream(server.url, options({ connectTimeoutMs: 150 }));
    expect((await stream.next()).data).toBe('late');
    stream.close();
  });
});
