import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cyrusBinDir } from './cyrus-config.js';

/** The one line a test run prints when the Cyrus backend cannot run on this machine. */
export const enableCyrusHint =
  'Cyrus IMAP is not installed: run `bash test/cyrus/install-cyrus.sh` as root to enable the Cyrus backend and its tests.';

/** The uid of user `cyrus` and the gid of group `mail`, which own a private instance's files. */
export interface CyrusIds {
  uid: number;
  gid: number;
}

/** Reads the ids of user cyrus and group mail from /etc/passwd and /etc/group; undefined if absent. */
export function lookupCyrusIds(): CyrusIds | undefined {
  const field = (file: string, name: string, index: number): number | undefined => {
    const line = readFileSync(file, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${name}:`));
    const value = line?.split(':')[index];
    return value === undefined ? undefined : Number(value);
  };
  try {
    const uid = field('/etc/passwd', 'cyrus', 2);
    const gid = field('/etc/group', 'mail', 2);
    return uid === undefined || gid === undefined ? undefined : { uid, gid };
  } catch {
    return undefined;
  }
}

/**
 * Why a private Cyrus instance cannot start here, or undefined when it can. master must start as
 * root (it drops to user cyrus) and the binaries come from Debian's packages.
 */
export function cyrusUnavailableReason(isRoot: boolean): string | undefined {
  const needed = [join(cyrusBinDir, 'master'), join(cyrusBinDir, 'httpd'), '/usr/sbin/saslpasswd2'];
  for (const file of needed) {
    try {
      accessSync(file, constants.X_OK);
    } catch {
      return enableCyrusHint;
    }
  }
  if (!lookupCyrusIds()) return enableCyrusHint;
  if (!isRoot)
    return 'Cyrus IMAP is installed but its master process must be started as root: run the Cyrus tests as root.';
  return undefined;
}
