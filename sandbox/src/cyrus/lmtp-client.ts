import { connect, type Socket } from 'node:net';

/** One recipient's outcome of an LMTP transaction (RFC 2033 §4.2: one reply per recipient). */
export interface LmtpResult {
  delivered: string[];
  refused: Array<{ recipient: string; reply: string }>;
}

interface Reply {
  code: number;
  text: string;
}

/**
 * Delivers `raw` to `recipients` over LMTP on a loopback port (Cyrus lmtpd -a, no auth) and
 * resolves once every recipient has its final answer, so the mail is in the store afterwards.
 */
export async function deliverOverLmtp(
  port: number,
  from: string,
  recipients: string[],
  raw: Buffer,
  timeoutMs = 15_000,
): Promise<LmtpResult> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.setTimeout(timeoutMs, () => socket.destroy(new Error('LMTP delivery timed out')));
  const replies = replyReader(socket);
  const expect = async (ok: (code: number) => boolean, what: string): Promise<Reply> => {
    const reply = await replies.next();
    if (!ok(reply.code)) throw new Error(`LMTP ${what} refused: ${reply.code} ${reply.text}`);
    return reply;
  };
  const result: LmtpResult = { delivered: [], refused: [] };
  try {
    await expect((c) => c === 220, 'greeting');
    socket.write('LHLO localhost\r\n');
    await expect((c) => c === 250, 'LHLO');
    socket.write(`MAIL FROM:<${from}>\r\n`);
    await expect((c) => c === 250, 'MAIL FROM');
    const accepted: string[] = [];
    for (const recipient of recipients) {
      socket.write(`RCPT TO:<${recipient}>\r\n`);
      const reply = await replies.next();
      if (reply.code === 250) accepted.push(recipient);
      else result.refused.push({ recipient, reply: `${reply.code} ${reply.text}` });
    }
    if (accepted.length > 0) {
      socket.write('DATA\r\n');
      await expect((c) => c === 354, 'DATA');
      socket.write(dotStuff(raw));
      for (const recipient of accepted) {
        const reply = await replies.next();
        if (reply.code === 250) result.delivered.push(recipient);
        else result.refused.push({ recipient, reply: `${reply.code} ${reply.text}` });
      }
    }
    socket.write('QUIT\r\n');
    socket.end();
    return result;
  } finally {
    socket.destroySoon();
  }
}

/** CRLF line endings, leading dots doubled, and the terminating "." line (RFC 5321 §4.5.2). */
function dotStuff(raw: Buffer): Buffer {
  const text = raw.toString('latin1').replace(/\r?\n/g, '\r\n');
  const body = text.replace(/^\./gm, '..');
  return Buffer.from(`${body}${body.endsWith('\r\n') ? '' : '\r\n'}.\r\n`, 'latin1');
}

/** Turns the socket's byte stream into SMTP/LMTP replies (a reply ends at "NNN " ). */
function replyReader(socket: Socket): { next(): Promise<Reply> } {
  let buffer = '';
  let lines: string[] = [];
  const ready: Reply[] = [];
  const waiting: Array<{ resolve: (r: Reply) => void; reject: (e: Error) => void }> = [];
  let failure: Error | undefined;
  const fail = (error: Error): void => {
    failure = error;
    for (const w of waiting.splice(0)) w.reject(error);
  };
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    let newline: number;
    while ((newline = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 2);
      lines.push(line.slice(4));
      if (/^\d{3}(?: |$)/.test(line)) {
        const reply = { code: Number(line.slice(0, 3)), text: lines.join(' ') };
        lines = [];
        const waiter = waiting.shift();
        if (waiter) waiter.resolve(reply);
        else ready.push(reply);
      }
    }
  });
  socket.once('error', fail);
  socket.once('close', () => fail(failure ?? new Error('LMTP connection closed')));
  return {
    next: () => {
      const reply = ready.shift();
      if (reply) return Promise.resolve(reply);
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
  };
}
