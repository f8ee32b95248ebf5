import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Stand-ins for macOS's launchctl and Windows's schtasks: node scripts on a PATH of their own that
 * record every argv (one JSON array a line, in argv.jsonl) and keep the scheduler's state in a JSON
 * file, answering with the exit codes and messages the real programs give. The product finds them
 * on `env.PATH`, as it would find the real ones; the real programs are never run.
 */
export interface StandIns {
  /** The folder to put first on PATH; argv.jsonl and the state files live in it. */
  bin: string;
  /** Every call so far, in order: ['launchctl', ...args] or ['schtasks', ...args]. */
  calls(): Promise<string[][]>;
  /** launchd's loaded jobs: label → { plist path, plist text as bootstrapped }. */
  launchd(): Promise<Record<string, { plist: string; content: string }>>;
  /** Task Scheduler's tasks: name → the XML it was created from (decoded from UTF-16). */
  tasks(): Promise<Record<string, string>>;
  setTasks(tasks: Record<string, string>): Promise<void>;
}

const common = `
const fs = require('node:fs');
const path = require('node:path');
const dir = __dirname;
function record(name) {
  fs.appendFileSync(path.join(dir, 'argv.jsonl'), JSON.stringify([name, ...process.argv.slice(2)]) + '\\n');
}
function load(file) {
  try { return JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')); } catch { return {}; }
}
function save(file, state) { fs.writeFileSync(path.join(dir, file), JSON.stringify(state, null, 2)); }
function fail(code, message) { process.stderr.write(message + '\\n'); process.exit(code); }
`;

// launchctl(1) of macOS 11+: print / bootstrap / bootout in the gui/<uid> domain.
const launchctl = `${common}
record('launchctl');
const [verb, a, b] = process.argv.slice(2);
const state = load('launchd.json');
const uid = process.env.STAND_IN_UID;
const domainOk = (d) => d === 'gui/' + uid;
if (verb === 'print') {
  const slash = a.lastIndexOf('/');
  if (!domainOk(a.slice(0, slash))) fail(113, 'Bad request.');
  const job = state[a.slice(slash + 1)];
  if (!job) fail(113, 'Could not find service "' + a.slice(slash + 1) + '" in domain for user gui: ' + uid);
  process.stdout.write(a + ' = {\\n\\tpath = ' + job.plist + '\\n\\tstate = not running\\n}\\n');
  process.exit(0);
}
if (verb === 'bootstrap') {
  if (!domainOk(a)) fail(125, 'Bootstrap failed: 125: Domain does not support specified action');
  let content;
  try { content = fs.readFileSync(b, 'utf8'); } catch { fail(5, 'Bootstrap failed: 5: Input/output error'); }
  const label = /<key>Label<\\/key>\\s*<string>([^<]*)<\\/string>/.exec(content);
  if (!label || !content.includes('<key>ProgramArguments</key>')) fail(5, 'Bootstrap failed: 5: Input/output error');
  if (state[label[1]]) fail(5, 'Bootstrap failed: 5: Input/output error');
  state[label[1]] = { plist: b, content };
  save('launchd.json', state);
  process.exit(0);
}
if (verb === 'bootout') {
  const slash = a.lastIndexOf('/');
  const label = a.slice(slash + 1);
  if (!domainOk(a.slice(0, slash)) || !state[label]) fail(3, 'Boot-out failed: 3: No such process');
  delete state[label];
  save('launchd.json', state);
  process.exit(0);
}
fail(64, 'Unrecognized subcommand: ' + verb);
`;

// schtasks.exe: /Create /TN n /XML file [/F], /Query /TN n [/XML], /Delete /TN n /F (switches any case).
const schtasks = `${common}
record('schtasks');
const args = process.argv.slice(2);
const flag = (name) => args.findIndex((x) => x.toUpperCase() === name);
const value = (name) => (flag(name) >= 0 ? args[flag(name) + 1] : undefined);
const tasks = load('tasks.json');
const name = value('/TN');
const missing = 'ERROR: The system cannot find the file specified.';
if (flag('/CREATE') === 0) {
  const bytes = fs.readFileSync(value('/XML'));
  if (bytes[0] !== 0xff || bytes[1] !== 0xfe) fail(1, 'ERROR: The task XML is malformed.');
  const xml = bytes.subarray(2).toString('utf16le');
  if (!xml.includes('<Task ') || !xml.includes('<Exec>')) fail(1, 'ERROR: The task XML is malformed.');
  if (tasks[name] && flag('/F') < 0) fail(1, 'ERROR: Cannot create a file when that file already exists.');
  tasks[name] = xml;
  save('tasks.json', tasks);
  process.stdout.write('SUCCESS: The scheduled task "' + name + '" has successfully been created.\\n');
  process.exit(0);
}
if (flag('/QUERY') === 0) {
  if (!tasks[name]) fail(1, missing);
  // Task Scheduler prints the task as it stores it: its own declaration and line ends.
  const out = (text) =>
    process.stdout.write(process.env.STAND_IN_UTF16 ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]) : text);
  if (flag('/XML') >= 0) out(tasks[name].replace(/^<\\?xml[^>]*>\\r?\\n/, '<?xml version="1.0" encoding="UTF-16"?>\\n').replace(/\\r\\n/g, '\\n'));
  else process.stdout.write('TaskName: \\\\' + name + '\\n');
  process.exit(0);
}
if (flag('/DELETE') === 0) {
  if (!tasks[name]) fail(1, missing);
  if (flag('/F') < 0) fail(1, 'ERROR: would prompt for confirmation');
  delete tasks[name];
  save('tasks.json', tasks);
  process.stdout.write('SUCCESS: The scheduled task "' + name + '" was successfully deleted.\\n');
  process.exit(0);
}
fail(1, 'ERROR: Invalid syntax.');
`;

/** Writes both stand-ins into `dir` (created). */
export async function createStandIns(dir: string): Promise<StandIns> {
  await mkdir(dir, { recursive: true });
  for (const [name, body] of [
    ['launchctl', launchctl],
    ['schtasks', schtasks],
  ] as const) {
    await writeFile(join(dir, name), `#!${process.execPath}\n${body}`);
    await chmod(join(dir, name), 0o755);
  }
  const json = async <T>(file: string): Promise<T> => {
    try {
      return JSON.parse(await readFile(join(dir, file), 'utf8')) as T;
    } catch {
      return {} as T;
    }
  };
  return {
    bin: dir,
    async calls() {
      let text = '';
      try {
        text = await readFile(join(dir, 'argv.jsonl'), 'utf8');
      } catch {
        return [];
      }
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string[]);
    },
    launchd: () => json('launchd.json'),
    tasks: () => json('tasks.json'),
    setTasks: (tasks) => writeFile(join(dir, 'tasks.json'), JSON.stringify(tasks)),
  };
}
