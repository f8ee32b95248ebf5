import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { deepFreeze } from '../deep-freeze.js';
import { MailboxError, inputRef } from '../errors.js';
import { listPackageDir, packageRoot, readPackageFile } from '../package-root.js';
import { presetSchema, type Preset } from './preset-schema.js';

export function presetsDir(): string {
  return join(packageRoot(), 'presets');
}

/** The bundled presets' names, from the folder listing: parsing every preset to find one cost ~10 ms per CLI start. */
async function presetNames(): Promise<string[]> {
  const files = (await listPackageDir(presetsDir())).filter((f) => f.endsWith('.json'));
  return files.sort().map((f) => f.slice(0, -5));
}

export async function listPresets(): Promise<{ name: string; preset: Preset }[]> {
  return Promise.all((await presetNames()).map(async (name) => ({ name, preset: await bundledPreset(name) })));
}

export type OpsFile = { kind: 'preset'; name: string; preset: Preset } | { kind: 'ops'; path: string; ops: unknown };

/** Loads `ops_file`: a bundled preset name (`list_inbox` or `list_inbox.json`) or a path to JSON ops or a preset. */
export async function loadOpsFile(opsFile: string): Promise<OpsFile> {
  const bareName = /^[a-z][a-z0-9_]*(\.json)?$/.exec(opsFile);
  if (bareName) {
    const name = opsFile.replace(/\.json$/, '');
    const names = await presetNames();
    if (names.includes(name)) return { kind: 'preset', name, preset: await bundledPreset(name) };
    const exists = await readFile(resolve(opsFile)).then(
      () => true,
      () => false,
    );
    if (!exists)
      throw new MailboxError({
        code: 'preset_unknown',
        message: `There is no preset named "${name}".`,
        hint: `Use one of: ${names.join(', ')} (help topic "presets" lists their vars), or give a path to a JSON file.`,
        next: { operation: 'help', input: { topic: 'presets' } },
        details: { presets: names },
      });
  }
  const path = resolve(opsFile);
  const json = await readJsonFile(path);
  if (json !== null && typeof json === 'object' && !Array.isArray(json) && 'steps' in json)
    return { kind: 'preset', name: basename(path).replace(/\.json$/, ''), preset: parsePreset(json, path) };
  return { kind: 'ops', path, ops: json };
}

/** The package's presets do not change while a process runs: a long MCP session reads and validates each once. */
const bundledPresets = new Map<string, Promise<Preset>>();

function bundledPreset(name: string): Promise<Preset> {
  let found = bundledPresets.get(name);
  if (!found) {
    // Frozen: every call shares it, and a call that changed it would change the next call's preset.
    const path = join(presetsDir(), `${name}.json`);
    found = readJsonFile(path).then((json) => deepFreeze(parsePreset(json, path)));
    bundledPresets.set(name, found);
    found.catch(() => bundledPresets.delete(name));
  }
  return found;
}

function parsePreset(json: unknown, path: string): Preset {
  const parsed = presetSchema.safeParse(json);
  if (!parsed.success)
    throw new MailboxError({
      code: 'ops_invalid',
      message: `The preset ${path} is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}.`,
      hint: 'Fix the file (compare with a bundled preset such as presets/send_mail.json).',
    });
  return parsed.data;
}

async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readPackageFile(path);
  } catch (error) {
    throw new MailboxError({
      code: 'ops_invalid',
      message: `Cannot read ${inputRef('ops_file')} ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
      hint: 'Give a bundled preset name (help topic "presets") or the path of an existing JSON file.',
      cause: error,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // The parser's message quotes the file (`"root:x:0:0"... is not valid JSON`): only where it failed is shown.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new MailboxError({
      code: 'ops_invalid',
      message: `${inputRef('ops_file')} ${path} is not valid JSON${position !== undefined ? ` (at ${lineAndColumn(text, Number(position))})` : ''}.`,
      hint: 'Fix the JSON (a methodCalls array, an {"using", "methodCalls"} envelope, or a preset).',
      cause: error,
    });
  }
}

/** `line L, column C` of a character offset, for a parse error that must not quote the file. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before[before.length - 1]?.length ?? 0) + 1}`;
}
