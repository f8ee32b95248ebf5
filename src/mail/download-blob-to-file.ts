import { access, mkdir, open, rm } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Account } from '../auth/account-registry.js';
import { MailboxError, type NextStep } from '../errors.js';
import { openServiceGate, type GateContext } from '../gate/service-gate.js';

interface DownloadBlobInput {
  blobId: string;
  /** File name as the mail gives it; only its base name is used, sanitised. */
  name?: string;
  type?: string;
  /** The message the blob belongs to: under the operator's receive rules, required and judged. */
  mailId?: string;
  /** Target file; must lie inside one of `allowedDirs`. Default: `<allowedDirs[0]>/<name>`. */
  path?: string;
}

interface DownloadBlobContext extends GateContext {
  /** Directories a download may write into: the operator's download directory, else the working directory. */
  allowedDirs: readonly string[];
  /** The same download under another file name, as a next step in the caller's input shape. */
  saveAs?: (name: string) => NextStep;
}

/** Into an allowed directory: a name from a message is reduced to a safe base name, and nothing is overwritten. */
export async function downloadBlobToFile(
  account: Account,
  input: DownloadBlobInput,
  ctx: DownloadBlobContext,
): Promise<{ path: string; size: number; type: string }> {
  const roots = ctx.allowedDirs.map((d) => resolve(d));
  const root = roots[0];
  if (!root) throw refused('No download directory is configured.');
  const target = input.path ? resolve(root, input.path) : join(root, safeFileName(input.name ?? input.blobId));
  if (!roots.some((dir) => isInside(target, dir)))
    throw refused(`${target} is outside the allowed download directories (${roots.join(', ')}).`);
  const gate = openServiceGate(account, ctx);
  // Held mail is refused before a file exists, so a refusal leaves nothing behind.
  await gate.screen.checkDownload(input.blobId, input.mailId);
  // A configured download directory may not exist yet; the working directory always does.
  await mkdir(dirname(target), { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    throw unwritable(dirname(target), {
      code: (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'ENOTDIR' : (error as NodeJS.ErrnoException).code,
    });
  });
  let handle;
  try {
    // 'wx': never replace an existing file, whatever a message suggests.
    handle = await open(target, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritable(target, error);
    const freeName = await freeNameBeside(target);
    throw new MailboxError({
      code: 'attachment_invalid',
      message: `${target} already exists; it was not overwritten.`,
      hint: freeName
        ? `Save it under a free name, e.g. "${freeName}", or remove the existing file first.`
        : 'Choose another file name or remove the existing file first.',
      ...(freeName && ctx.saveAs ? { next: ctx.saveAs(freeName) } : {}),
      cause: error,
    });
  }
  let size: number;
  try {
    size = await gate.download(input.blobId, handle, {
      ...(input.name ? { name: input.name } : {}),
      ...(input.type ? { type: input.type } : {}),
      ...(input.mailId ? { mailId: input.mailId } : {}),
    });
  } catch (error) {
    // A cut-off or failed download must not look like a finished file.
    await handle.close().catch(() => undefined);
    await rm(target, { force: true }).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return { path: target, size, type: input.type ?? 'application/octet-stream' };
}

/** A base name safe on every platform: no separators, no leading dots, no control characters. */
export function safeFileName(name: string): string {
  const base = basename(name.replace(/\\/g, '/'))
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]/g, '_')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 200);
  return base === '' ? 'attachment' : base;
}

/** The first of name-1.ext, name-2.ext, … not taken beside `target`; only a suggestion ('wx' still guards). */
async function freeNameBeside(target: string): Promise<string | undefined> {
  const ext = extname(target);
  const stem = basename(target, ext);
  for (let n = 1; n < 1000; n++) {
    const name = `${stem}-${n}${ext}`;
    try {
      await access(join(dirname(target), name));
    } catch {
      return name;
    }
  }
  return undefined;
}

function unwritable(target: string, error: unknown): MailboxError {
  return new MailboxError({
    code: 'attachment_invalid',
    message: `Cannot write ${target}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
    // An MCP server's working directory is the host's choice (often / or an app folder).
    hint: "The operator sets a writable download directory: AGENT_MAILBOX_DOWNLOAD_DIR in the server's environment, or --download-dir on the command line.",
    cause: error,
  });
}

function isInside(target: string, dir: string): boolean {
  const rel = relative(dir, target);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function refused(message: string): MailboxError {
  return new MailboxError({
    code: 'attachment_invalid',
    message,
    hint: "Give a plain file name: downloads are saved only inside the download directory (the operator's AGENT_MAILBOX_DOWNLOAD_DIR, else the working directory), and paths from e-mails are never used.",
  });
}
