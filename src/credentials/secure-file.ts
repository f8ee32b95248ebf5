import { randomBytes } from 'node:crypto';
import { constants, lstatSync, unlinkSync } from 'node:fs';
import { chmod, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MailboxError, inputRef } from '../errors.js';

// Stryker disable next-line ConditionalExpression,StringLiteral: the platform is fixed for a run; the suite runs on Linux, where both forms are false
const isWindows = process.platform === 'win32';
// O_NOFOLLOW makes the kernel refuse a symlink as the last path component (ELOOP); absent on Windows.
// Stryker disable next-line LogicalOperator: on Linux O_NOFOLLOW is defined, so `?? 0` never applies and `&& 0` only drops the second of two link checks (lstat refuses first)
const noFollow = constants.O_NOFOLLOW ?? 0;

/** Creates the directory 0700, or tightens an existing one; a symlinked directory is used but never chmod-ed. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const info = await lstat(dir);
    if (!isWindows && info.isDirectory() && (info.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
  } catch (error) {
    throw fileError(dir, error, true, true);
  }
}

/** Temp files of writes in flight in this process, removed if the process exits before renaming them. */
const inFlight = new Set<string>();
let exitHookInstalled = false;
function track(temp: string): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Token temps hold JWTs: gone at any ordinary exit. A credentials temp is left for the next read to recover.
    process.once('exit', () => {
      for (const path of inFlight) {
        if (basename(path).startsWith('.credentials.json.')) continue;
        try {
          unlinkSync(path);
        } catch {
          // already renamed or removed
        }
      }
    });
  }
  inFlight.add(temp);
}

/** Name of a temp file for `path`: `.<name>.<pid>.<random>.tmp`, so a later run can tell whose it was. */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

export function parseTempName(name: string): { target: string; pid: number } | undefined {
  const match = /^\.(.+)\.(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name);
  return match?.[1] && match[2] ? { target: match[1], pid: Number(match[2]) } : undefined;
}

/** Readers see the old or the new content, never a mix: temp file beside it, fsync, rename; a symlink is refused. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const dir = dirname(path);
  await ensurePrivateDir(dir);
  await refuseSymlink(path);
  const temp = tempPathFor(path);
  track(temp);
  try {
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | noFollow, 0o600);
    try {
      // Stryker disable next-line StringLiteral: an empty encoding name falls back to UTF-8
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    await syncDir(dir);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw fileError(path, error, true);
    // Stryker disable next-line BlockStatement: a finished write's temp path no longer exists, so the exit hook's unlink of it fails silently; the set's growth is memory, watched by the 10,000-call bench
  } finally {
    inFlight.delete(temp);
  }
}

/** Last text read per path and its file identity: an unchanged file (writes rename) costs an lstat, not five trips. */
const readCache = new Map<string, { identity: string; text: string }>();

function fileIdentity(info: { dev: bigint; ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint }): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** A file's text, or undefined when absent; never through a symlink, and tightened to 0600 through the open handle. */
export async function readPrivateFile(path: string): Promise<string | undefined> {
  // Synchronous: the thread pool cost the MCP server ~0.08 ms a call (docs/benchmarks.md), an lstat microseconds.
  let seen;
  // Stryker disable next-line all: the cache's options; without them the identities never match and every read opens the file, with the same answer
  try {
    // Stryker disable next-line all: as above
    seen = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    seen = undefined;
  }
  // Stryker disable next-line ConditionalExpression: the open below refuses a link too (O_NOFOLLOW gives ELOOP), with the same error
  if (seen?.isSymbolicLink()) throw symlinkError(path);
  const cached = readCache.get(path);
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: a chmod changes the ctime in the identity, so a loosened file never hits the cache; the mode test only guards against clocks that do not tick
  if (seen && cached && cached.identity === fileIdentity(seen) && (isWindows || (seen.mode & 0o777n) === 0o600n))
    return cached.text;
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | noFollow);
  } catch (error) {
    readCache.delete(path);
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Stryker disable next-line ConditionalExpression,StringLiteral: reached only when a link appears between the lstat above and this open
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw symlinkError(path);
    throw fileError(path, error, false);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw fileError(path, new Error('not a regular file'), false);
    // Stryker disable next-line ConditionalExpression,LogicalOperator: chmod 0600 of a file already 0600 changes nothing (and isWindows is false here)
    if (!isWindows && (info.mode & 0o777) !== 0o600) await handle.chmod(0o600).catch(() => undefined);
    // Directories made by older clients may be group/world readable: tighten on sight (never via a link).
    const dir = await lstat(dirname(path));
    if (!isWindows && dir.isDirectory() && (dir.mode & 0o777) !== 0o700)
      await chmod(dirname(path), 0o700).catch(() => undefined);
    const text = await handle.readFile('utf8');
    // After any chmod, so the next unchanged read hits.
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: a wrong identity only makes the next read miss the cache
    readCache.set(path, { identity: fileIdentity(await handle.stat({ bigint: true })), text });
    return text;
  } catch (error) {
    throw error instanceof MailboxError ? error : fileError(path, error, false);
  } finally {
    await handle.close();
  }
}

async function refuseSymlink(path: string): Promise<void> {
  try {
    if ((await lstat(path)).isSymbolicLink()) throw symlinkError(path);
  } catch (error) {
    if (error instanceof MailboxError) throw error;
    // ENOENT and friends: the open that follows reports them.
  }
}

function symlinkError(path: string): MailboxError {
  return new MailboxError({
    code: 'credentials_symlink',
    message: `${path} is a symbolic link; agent-mailbox never reads, writes or changes permissions through a link in the credentials directory.`,
    hint: `Replace the link with the real file (e.g. move the target to ${path}), or point ${inputRef('credentials_dir')} / AGENT_MAILBOX_CREDENTIALS_DIR at the directory that holds it.`,
    details: { path },
  });
}

// The rename must itself survive a crash: fsync the directory entry.
// Stryker disable all: durability across a power cut; no test in a running system can observe a missing fsync
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot open directories; rename there is already durable enough.
  }
}
// Stryker restore all

/** A file where the credentials directory should be (ENOTDIR, or EEXIST on mkdir) is a wrong path, not permissions. */
function fileError(path: string, cause: unknown, writing: boolean, isDir = false): MailboxError {
  // Stryker disable next-line OptionalChaining: every caller passes the error it caught
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const notADir =
    code === 'ENOTDIR' || (code === 'EEXIST' && isDir)
      ? `${isDir ? path : dirname(path)} is a file, not a directory: give ${inputRef('credentials_dir')} the directory that holds credentials.json (or a new one to register in).`
      : undefined;
  return new MailboxError({
    code: 'credentials_unwritable',
    message: `Cannot ${writing ? 'write' : 'read'} ${path}: ${(cause as Error).message}.`,
    hint:
      notADir ??
      (writing
        ? `Choose a credentials directory this user can write (${inputRef('credentials_dir')} or AGENT_MAILBOX_CREDENTIALS_DIR).`
        : 'Check the permissions of the credentials directory (it should belong to this user, mode 0700).'),
    cause,
  });
}
