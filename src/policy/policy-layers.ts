import { lstatSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deepFreeze } from '../deep-freeze.js';
import { MailboxError } from '../errors.js';
import { readPrivateFile } from '../credentials/secure-file.js';
import { emptyPolicy, policyFileSchema, policyLayers, type PolicyFile, type PolicyLayer } from './policy-schema.js';

/**
 * Where each layer of the operator's policy lives, and reading them back. The machine layer's path is
 * fixed per platform, never taken from the environment (which the agent may set); it is the
 * administrator's to write and everyone's to read, so it is read as a plain file. The user and inbox
 * layers are private files.
 */

/** The machine-wide policy on Linux and macOS: binds every inbox of every user on this machine when present. */
export const machinePolicyPath = '/etc/agent-mailbox/policy.json';

/**
 * On Windows ProgramData, whose folder the administrator creates administrators-only (any user may create `C:\etc`);
 * not from %ProgramData%, which the agent may set. Windows off drive C: has no machine layer (docs/hosts.md).
 */
export function machinePolicyPathFor(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? 'C:\\ProgramData\\agent-mailbox\\policy.json' : machinePolicyPath;
}

export interface PolicyPaths {
  machine: string;
  user: string;
  /** The inbox's credentials directory; absent for commands that bind no inbox (`policy show --user`). */
  inboxDir?: string;
}

/** One layer as read: its rules are empty when the file is absent. */
export interface LoadedLayer {
  layer: PolicyLayer;
  path: string;
  present: boolean;
  policy: PolicyFile;
  /** The file exists but cannot be used: every judgement under it fails closed with this error. */
  error?: MailboxError;
}

/** The paths of the three layers for one inbox (or none). */
export function policyPaths(options: {
  userConfigDir: string;
  inboxDir?: string;
  machinePath?: string;
  /** Default: this platform. */
  platform?: NodeJS.Platform;
}): PolicyPaths {
  return {
    machine: options.machinePath ?? machinePolicyPathFor(options.platform),
    user: join(options.userConfigDir, 'user-policy.json'),
    ...(options.inboxDir !== undefined ? { inboxDir: options.inboxDir } : {}),
  };
}

export function layerPath(paths: PolicyPaths, layer: PolicyLayer): string | undefined {
  if (layer === 'machine') return paths.machine;
  if (layer === 'user') return paths.user;
  return paths.inboxDir === undefined ? undefined : join(paths.inboxDir, 'policy.json');
}

/** An unusable file is kept with its error: judging under it fails closed, and `policy show` says what is wrong. */
export async function loadPolicyLayers(paths: PolicyPaths): Promise<LoadedLayer[]> {
  const layers: LoadedLayer[] = [];
  for (const layer of policyLayers) {
    const path = layerPath(paths, layer);
    if (path === undefined) continue;
    layers.push(await loadLayer(layer, path));
  }
  return layers;
}

/**
 * Layers as last read, with the file's identity then: the MCP server reads the layers on every call, and a
 * synchronous lstat decides (any write, replace or chmod changes it; a symlink's target can change unseen).
 */
const layerCache = new Map<string, { identity: string; loaded: LoadedLayer }>();

function fileIdentity(path: string): string | 'absent' | undefined {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return undefined;
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.mode}:${stat.uid}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : undefined;
  }
}

async function loadLayer(layer: PolicyLayer, path: string): Promise<LoadedLayer> {
  const identity = fileIdentity(path);
  if (identity === 'absent') return { layer, path, present: false, policy: emptyPolicy };
  const cached = layerCache.get(`${layer}\0${path}`);
  if (identity !== undefined && cached?.identity === identity) return cached.loaded;
  let loaded: LoadedLayer;
  try {
    const text = layer === 'machine' ? await readWorldReadable(path) : await readPrivateFile(path);
    loaded =
      text === undefined
        ? { layer, path, present: false, policy: emptyPolicy }
        : { layer, path, present: true, policy: parsePolicyText(text, path) };
  } catch (cause) {
    const error = cause instanceof MailboxError && cause.code === 'policy_unreadable' ? cause : unreadable(path, cause);
    loaded = { layer, path, present: true, policy: emptyPolicy, error };
  }
  // Shared by every later call while the file stays the same: nobody may change it.
  if (identity !== undefined)
    layerCache.set(`${layer}\0${path}`, { identity, loaded: { ...loaded, policy: deepFreeze(loaded.policy) } });
  return loaded;
}

/** Throws the first layer's error: rules nobody can read refuse everything they would judge. */
export function assertUsable(layers: readonly LoadedLayer[]): void {
  const broken = layers.find((layer) => layer.error);
  if (broken?.error) throw broken.error;
}

/** Parses one policy file's text; a broken file is an error naming the file, never a silent empty policy. */
export function parsePolicyText(text: string, path: string): PolicyFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw unreadable(path, new Error('it is not JSON'));
  }
  const parsed = policyFileSchema.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`)
      .join('; ');
    throw unreadable(path, new Error(where));
  }
  return parsed.data;
}

async function readWorldReadable(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: loadLayer's lstat has already answered absent for both; reached only when the file goes away between the lstat and the read
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
    throw unreadable(path, error);
  }
}

function unreadable(path: string, cause: unknown): MailboxError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new MailboxError({
    code: 'policy_unreadable',
    message: `The operator's policy file ${path} cannot be used (${detail}); until it can, nothing is sent or read under it.`,
    hint: 'Tell your operator: the policy file is theirs to repair (`policy show` names each file and what is wrong with it).',
    cause,
  });
}
