import type { IncomingMessage, ServerResponse } from 'node:http';
import { sandboxDocsUrl } from './sandbox-docs-url.js';

/** Host names a browser on this machine may use for a loopback listener. */
const loopbackNames = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * Refuses requests whose Host header names anything but this listener (loopback names or the
 * extra names the operator allowed, with or without the listening port). Without it a web page
 * could reach a running sandbox through DNS rebinding: its own name, resolving to 127.0.0.1.
 */
export function guardHostHeader(
  port: () => number,
  extraNames: readonly string[],
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const names = [...loopbackNames, ...extraNames.map((name) => name.toLowerCase())];
  return (req, res) => {
    const host = (req.headers.host ?? '').toLowerCase();
    const allowed = names.some((name) => host === name || host === `${name}:${port()}`);
    if (allowed) return handler(req, res);
    req.resume();
    const body = JSON.stringify({
      error: {
        message: 'This sandbox does not answer for the Host header of the request.',
        hint: `Use the URL the sandbox printed (http://127.0.0.1:${port()}); to reach it under another name, start it with --allow-host <name>.`,
        docs_url: sandboxDocsUrl,
      },
    });
    // 421 Misdirected Request (RFC 9110 §15.5.20): the request reached a server that is not the one it named.
    res.writeHead(421, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      connection: 'close',
    });
    res.end(body);
  };
}
