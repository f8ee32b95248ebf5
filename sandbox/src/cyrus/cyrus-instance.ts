import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lookupCyrusIds, type CyrusIds } from './cyrus-availability.js';
import {
  cyrusBinDir,
  cyrusLayout,
  renderCyrusConf,
  renderImapdConf,
  type CyrusLayout,
  type CyrusPorts,
} from './cyrus-config.js';
import { pickFreePort } from './free-port.js';
import { pollUntil } from './poll-until.js';
import { spawnTethered, type TetheredProcess } from './tethered-process.js';

/** A running private Cyrus: its files, ports, and the one way to stop everything it started. */
export interface CyrusInstance {
  layout: CyrusLayout;
  ports: CyrusPorts;
  ids: CyrusIds;
  /** The last lines Cyrus logged (when this instance runs the syslog sink), for failure reports. */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

export interface StartCyrusOptions {
  /** Port of the harness's SMTP server; it must already listen (see cyrus.md, submission). */
  smtpPort: number;
  log: (line: string) => void;
  startTimeoutMs?: number;
  /** Keeps the instance (spool, mailbox database, sasldb) here across restarts; a temp dir removed on stop when absent. */
  baseDir?: string;
}

const devLog = '/dev/log';

/**
 * Builds a private instance under a fresh temp dir (owned cyrus:mail, never /etc/imapd.conf or
 * /var/lib/cyrus), starts `master` on free loopback ports and waits until httpd answers.
 */
export async function startCyrusInstance(options: StartCyrusOptions): Promise<CyrusInstance> {
  const ids = lookupCyrusIds();
  if (!ids) throw new Error('user cyrus or group mail is missing: is Cyrus IMAP installed?');
  // Not under /root: user cyrus must be able to traverse every parent directory.
  const parent = tmpdir().startsWith('/root') ? '/tmp' : tmpdir();
  const isKept = options.baseDir !== undefined;
  const base = options.baseDir ?? mkdtempSync(join(parent, 'agent-mailbox-cyrus-'));
  if (isKept) {
    mkdirSync(base, { recursive: true, mode: 0o755 });
    // Left by a master that was killed: a stale pid file or socket would stop the new one.
    rmSync(join(base, 'run'), { recursive: true, force: true });
    rmSync(join(base, 'config', 'socket'), { recursive: true, force: true });
  }
  const layout = cyrusLayout(base);
  const ports: CyrusPorts = {
    imap: await pickFreePort(),
    http: await pickFreePort(),
    lmtp: await pickFreePort(),
    sieve: await pickFreePort(),
    smtp: options.smtpPort,
  };
  const children: TetheredProcess[] = [];
  // The inode of the /dev/log socket our sink created: another instance's sink may replace it.
  let ownDevLog: number | undefined;

  const stopAll = async (): Promise<void> => {
    // master stops its services (DAEMON entries included) on SIGTERM; the sink goes last so the
    // shutdown lines are still logged.
    for (const child of children.splice(0).reverse()) await child.stop();
    if (ownDevLog !== undefined && inodeOf(devLog) === ownDevLog) unlinkSync(devLog);
    if (!isKept) rmSync(base, { recursive: true, force: true });
  };

  try {
    for (const dir of layout.dirs) mkdirOwned(dir, ids);
    chmodSync(base, 0o755);
    chownSync(base, ids.uid, ids.gid);
    writeOwned(layout.imapdConf, renderImapdConf(layout, ports), ids);
    writeOwned(layout.cyrusConf, renderCyrusConf(layout, ports), ids);
    writeOwned(layout.syslogFile, '', ids);

    // Cyrus logs only to syslog; in containers nothing listens on /dev/log, so run a sink. A
    // socket file nobody is bound to (left by a killed sink) is replaced.
    if (!hasLiveSyslog() && existsSync('/bin/busybox')) {
      if (existsSync(devLog)) unlinkSync(devLog);
      children.push(
        await spawnTethered('/bin/busybox', ['syslogd', '-n', '-O', layout.syslogFile], options.log, 'syslog sink'),
      );
      ownDevLog = await pollUntil('the syslog sink', () => inodeOf(devLog), 2_000);
    }

    const started = Date.now();
    const master = await spawnTethered(
      join(cyrusBinDir, 'master'),
      ['-C', layout.imapdConf, '-M', layout.cyrusConf, '-p', layout.pidFile],
      options.log,
      'cyrus master',
    );
    children.push(master);
    let exitCode: number | undefined;
    void master.exited.then((code) => (exitCode = code));
    await pollUntil(
      'Cyrus httpd to answer',
      async () => {
        if (exitCode !== undefined) throw new Error(`master exited with code ${exitCode}`);
        return (await httpStatus(ports.http, '/.well-known/jmap')) > 0 ? true : undefined;
      },
      options.startTimeoutMs ?? 15_000,
    );
    options.log(
      `cyrus: instance at ${base} ready in ${Date.now() - started} ms (master pid ${master.pid}, imap ${ports.imap}, http ${ports.http}, lmtp ${ports.lmtp}, sieve ${ports.sieve})`,
    );
  } catch (error) {
    const tail = readTail(layout.syslogFile, 20);
    await stopAll();
    throw new Error(`${error instanceof Error ? error.message : String(error)}${tail ? `\nCyrus log:\n${tail}` : ''}`, {
      cause: error,
    });
  }

  return {
    layout,
    ports,
    ids,
    logTail: (lines = 40) => readTail(layout.syslogFile, lines),
    stop: stopAll,
  };
}

function mkdirOwned(dir: string, ids: CyrusIds): void {
  mkdirSync(dir, { recursive: true, mode: 0o750 });
  chownSync(dir, ids.uid, ids.gid);
}

function writeOwned(file: string, text: string, ids: CyrusIds): void {
  writeFileSync(file, text, { mode: 0o640 });
  chownSync(file, ids.uid, ids.gid);
}

/** True when a process is bound to /dev/log: /proc/net/unix lists only live sockets. */
function hasLiveSyslog(): boolean {
  try {
    return readFileSync('/proc/net/unix', 'utf8')
      .split('\n')
      .some((line) => line.endsWith(` ${devLog}`));
  } catch {
    return existsSync(devLog);
  }
}

function inodeOf(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

function readTail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** The HTTP status of a GET on the loopback port, or 0 when nothing answers yet. */
function httpStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}
