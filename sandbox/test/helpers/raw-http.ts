import { connect } from 'node:net';

/** A response as read off the socket: status and body text. */
export interface RawResponse {
  status: number;
  body: string;
}

/**
 * Sends bytes exactly as given (no client-side validation of paths or headers) and reads the
 * whole response; the request must carry "connection: close" so the server ends the socket.
 */
export function rawHttp(port: number, request: string | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // An event stream that was accepted never ends by itself: its head is the answer.
      const head = Buffer.concat(chunks).toString('latin1');
      if (
        head.includes('\r\n\r\n') &&
        /content-type: text\/event-stream/i.test(head.slice(0, head.indexOf('\r\n\r\n')))
      )
        socket.destroy();
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      if (!match) return reject(new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 80))}`));
      const bodyStart = text.indexOf('\r\n\r\n');
      resolve({ status: Number(match[1]), body: bodyStart < 0 ? '' : text.slice(bodyStart + 4) });
    });
    // write, not end: a half-closed socket makes Node's server drop a response still being prepared.
    socket.write(request);
  });
}

/** Builds a request with a body and the usual headers; `target` and header values go out verbatim. */
export function buildRequest(method: string, target: string, headers: Record<string, string>, body = ''): Buffer {
  const lines = [
    `${method} ${target} HTTP/1.1`,
    ...Object.entries({ connection: 'close', ...headers }).map(([name, value]) => `${name}: ${value}`),
  ];
  if (body || method === 'POST') lines.push(`content-length: ${Buffer.byteLength(body)}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.from(body)]);
}
