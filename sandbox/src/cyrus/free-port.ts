import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

// Below Linux's ephemeral range (32768–60999): a port-0 listener of another test or process can
// never be handed a port from here between our check and Cyrus binding it. Picking from the
// ephemeral range let a parallel test take Cyrus's httpd port, so the readiness probe answered
// for the wrong server and requests failed later with 502.
const firstPort = 20_000;
const lastPort = 32_000;

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port that was free a moment ago. Cyrus's master needs numeric ports in cyrus.conf,
 * so it cannot take port 0 itself.
 */
export async function pickFreePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = randomInt(firstPort, lastPort);
    if (await isFree(port)) return port;
  }
  throw new Error(`no free loopback port found between ${firstPort} and ${lastPort}`);
}
