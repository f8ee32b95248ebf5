import { connect } from 'node:net';

/**
 * Uploads and activates one Sieve script over ManageSieve (RFC 5804): AUTHENTICATE PLAIN,
 * PUTSCRIPT with a non-synchronizing literal, SETACTIVE. Enough for a test to turn on Cyrus's
 * own vacation action; each reply must be OK within the deadline.
 */
export async function putActiveSieveScript(
  port: number,
  user: string,
  password: string,
  name: string,
  script: string,
  timeoutMs = 10_000,
): Promise<void> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.setTimeout(timeoutMs, () => socket.destroy(new Error('ManageSieve timed out')));
  let buffered = '';
  const waiters: Array<() => void> = [];
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    waiters.splice(0).forEach((wake) => wake());
  });
  const closed = new Promise<never>((_, reject) => {
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`ManageSieve closed: ${buffered.slice(-200)}`)));
  });
  closed.catch(() => undefined);
  /** Reads lines up to the final OK/NO/BYE of one response. */
  const response = async (): Promise<void> => {
    for (;;) {
      const match = /^(OK|NO|BYE)\b.*\r\n/m.exec(buffered);
      if (match) {
        buffered = buffered.slice(match.index + match[0].length);
        if (match[1] !== 'OK') throw new Error(`ManageSieve refused: ${match[0].trim()}`);
        return;
      }
      await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), closed]);
    }
  };
  try {
    await response();
    const plain = Buffer.from(`\0${user}\0${password}`).toString('base64');
    socket.write(`AUTHENTICATE "PLAIN" "${plain}"\r\n`);
    await response();
    const bytes = Buffer.byteLength(script);
    socket.write(`PUTSCRIPT "${name}" {${bytes}+}\r\n${script}\r\n`);
    await response();
    socket.write(`SETACTIVE "${name}"\r\n`);
    await response();
    socket.write('LOGOUT\r\n');
  } finally {
    socket.destroy();
  }
}
