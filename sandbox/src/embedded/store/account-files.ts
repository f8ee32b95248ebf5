import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  existsSync,
  appendFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { accountIndex, type AccountIndex } from './records.js';

/**
 * Persistence of one inbox when the sandbox has a data directory:
 * `<dataDir>/inboxes/<address>/index.json` plus `messages/<emailId>.eml` and `blobs/<blobId>.bin`.
 * Messages stay plain .eml files so users can open them with any mail tool; the index is small
 * JSON rewritten whole with temp file + rename, so a crash never leaves a half-written index.
 * Writes are synchronous: a sandbox serves one user, and this keeps request order = write order.
 */
export class AccountFiles {
  private readonly dir: string;

  constructor(dataDir: string, address: string) {
    this.dir = join(dataDir, 'inboxes', encodeURIComponent(address));
    // Mail is private to the user running the sandbox.
    mkdirSync(join(this.dir, 'messages'), { recursive: true, mode: 0o700 });
    mkdirSync(join(this.dir, 'blobs'), { recursive: true, mode: 0o700 });
  }

  /** Writes the index atomically. */
  writeIndex(index: AccountIndex): void {
    writeAtomically(join(this.dir, 'index.json'), Buffer.from(JSON.stringify(index)));
  }

  /** Stores a message's raw bytes. */
  writeMessage(emailId: string, raw: Buffer): void {
    writeAtomically(join(this.dir, 'messages', `${emailId}.eml`), raw);
  }

  /** Reads a message's raw bytes. */
  readMessage(emailId: string): Buffer {
    return readFileSync(join(this.dir, 'messages', `${emailId}.eml`));
  }

  /** Removes a destroyed message. */
  deleteMessage(emailId: string): void {
    rmSync(join(this.dir, 'messages', `${emailId}.eml`), { force: true });
  }

  /** Stores an uploaded blob. */
  writeBlob(blobId: string, data: Buffer): void {
    writeAtomically(join(this.dir, 'blobs', `${blobId}.bin`), data);
  }

  /** Reads an uploaded blob. */
  readBlob(blobId: string): Buffer {
    return readFileSync(join(this.dir, 'blobs', `${blobId}.bin`));
  }
}

/** Reads every stored inbox index under `<dataDir>/inboxes`. */
export function readAccountIndexes(dataDir: string): AccountIndex[] {
  const root = join(dataDir, 'inboxes');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((entry) => existsSync(join(root, entry, 'index.json')))
    .map((entry) => {
      const file = join(root, entry, 'index.json');
      try {
        return accountIndex.parse(JSON.parse(readFileSync(file, 'utf8')));
      } catch (cause) {
        throw new Error(
          `The sandbox mail index ${file} is unreadable; restore it from a backup or delete that inbox folder.`,
          { cause },
        );
      }
    });
}

/** Appends one JSON line to a file (the outbox log). */
export function appendJsonLine(file: string, value: unknown): void {
  appendFileSync(file, `${JSON.stringify(value)}\n`);
}

function writeAtomically(file: string, data: Buffer): void {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, data);
  renameSync(temp, file);
}
