import { createServer } from 'node:net';

/**
 * A loopback port that was free a moment ago: listen on port 0, read the port, close. Cyrus's
 * master needs numeric ports in cyrus.conf, so it cannot take port 0 itself.
 */
export function pickFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}
