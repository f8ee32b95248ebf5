import { accessSync, constants, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { MailboxError } from '../errors.js';

/** The sandbox's npm package and the command it installs. */
const sandboxPackage = 'agent-mailbox-sandbox';

function binOfPackage(packageJson: string): string | undefined {
  const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.[sandboxPackage];
  return bin === undefined ? undefined : join(dirname(packageJson), bin);
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The sandbox's bin (the client never imports the sandbox, it starts it): the package node resolves
 * from the client's location (a workspace, or a global install beside it), else the one on PATH.
 */
export function findSandboxBin(lookup: {
  env: Readonly<Record<string, string | undefined>>;
  /** Finds the package's package.json as node would from the client's files; throws when not there. */
  resolvePackageJson?: () => string;
}): string {
  try {
    const packageJson =
      lookup.resolvePackageJson?.() ?? createRequire(import.meta.url).resolve(`${sandboxPackage}/package.json`);
    const bin = binOfPackage(packageJson);
    if (bin !== undefined && isExecutable(bin)) return bin;
  } catch {
    // Not installed beside the client: PATH next.
  }
  for (const dir of (lookup.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, sandboxPackage);
    if (isExecutable(candidate)) return candidate;
  }
  throw new MailboxError({
    code: 'sandbox_not_installed',
    message: `The sandbox is a package of its own (${sandboxPackage}) and is not installed beside this client or on PATH.`,
    hint: `Install it with \`npm install -g ${sandboxPackage}\`, or run from a checkout of agent-mailbox (npm ci && npm run build).`,
  });
}
