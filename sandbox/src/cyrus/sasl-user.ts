import { spawn } from 'node:child_process';
import type { CyrusIds } from './cyrus-availability.js';

/**
 * Adds `address` to the instance's sasldb with `password` (saslpasswd2 -p reads it from stdin,
 * so it never appears in a process listing). The realm is the domain, which is how Cyrus with
 * `virtdomains: userid` authenticates a full address. Runs as user cyrus so the db stays its own.
 */
export function createSaslUser(sasldb: string, address: string, password: string, ids: CyrusIds): Promise<void> {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/sbin/saslpasswd2', ['-p', '-c', '-f', sasldb, '-u', domain, local], {
      uid: ids.uid,
      gid: ids.gid,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`saslpasswd2 exited ${code}: ${stderr.trim()}`)),
    );
    child.stdin.end(password);
  });
}
