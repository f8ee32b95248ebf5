import { connect } from 'node:net';

/**
 * One IMAP LOGIN and LOGOUT as `user` (RFC 9051 §6.2.3). Cyrus creates an account and its
 * autocreate_inbox_folders only at the first IMAP login; a JMAP request alone answers
 * accountNotFound (shared/reference/cyrus.md).
 */
export function loginOverImap(port: number, user: string, password: string, timeoutMs = 10_000): Promise<void> {
  const quote = (text: string): string => `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('IMAP login timed out')));
    let buffer = '';
    let step: 'greeting' | 'login' | 'logout' = 'greeting';
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        if (step === 'greeting' && line.startsWith('* OK')) {
          step = 'login';
          socket.write(`a1 LOGIN ${quote(user)} ${quote(password)}\r\n`);
        } else if (step === 'login' && line.startsWith('a1 ')) {
          if (!line.startsWith('a1 OK')) return socket.destroy(new Error(`IMAP login refused: ${line}`));
          step = 'logout';
          socket.write('a2 LOGOUT\r\n');
        } else if (step === 'logout' && line.startsWith('a2 ')) {
          socket.end();
          resolve();
        }
      }
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`IMAP connection closed during ${step}`)));
  });
}
