import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailboxError } from '../../src/errors.js';
import { buildCronLine, commandOfCronLine } from '../../src/watch/crontab-entries.js';

/**
 * Every argument of the crontab line — node binary, CLI entry, credentials directory, log file —
 * must reach the program exactly as given after cron and then /bin/sh have read the line, whatever
 * the path holds. The line is run as cron runs it: the command after the five schedule fields, with
 * cron's own unescaping (both the Vixie cron of Debian, which unescapes `\%` and `\\`, and cronies
 * that unescape only `\%`), cut at the first unescaped `%`, by `/bin/sh -c` in an empty environment.
 * The "node" it starts is a script that writes the argv it received into the log file, so the
 * redirection is checked too: the record is found only where the log path says.
 */

/** The characters that break naive quoting: quotes, expansions, escapes, cron's `%`, globbing, comments. */
const nasty = [
  'sp ace',
  "o'neil",
  '"dq"',
  '$HOME',
  '${HOME}',
  '`id`',
  '$(id)',
  'back\\slash',
  'two\\\\slashes',
  'trail\\',
  '100%',
  '50\\%off',
  '%%',
  'semi;colon&amp|pipe',
  'glob*?[a]',
  '~tilde',
  '#hash',
  'tab\there',
  'cr\rhere',
  '!bang{a,b}<in>out',
  '-leading-dash',
  'ünïcødé 🚀',
];

type CronVariant = 'vixie' | 'percent-only';

/** The command cron hands to /bin/sh for a crontab line, by the rules of do_command (crontab(5)). */
function cronCommand(line: string, variant: CronVariant): string {
  const command = line.replace(/^\s*(?:\S+\s+){5}/, '');
  let out = '';
  let escaped = false;
  for (const ch of command) {
    if (escaped) {
      escaped = false;
      const unescapes = ch === '%' || (variant === 'vixie' && ch === '\\');
      out = unescapes ? `${out.slice(0, -1)}${ch}` : `${out}${ch}`;
      continue;
    }
    if (ch === '%') break;
    out += ch;
    if (ch === '\\') escaped = true;
  }
  return out;
}

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'crontab-arguments-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

interface Layout {
  nodePath: string;
  cliPath: string;
  credentialsDir: string;
  logPath: string;
}

/** A fake node at `<base>/<name>/bin/node` that logs its argv, NUL-separated, to stdout. */
async function layout(name: string): Promise<Layout> {
  const root = join(base, name);
  const binDir = join(root, 'bin');
  const credentialsDir = join(root, 'inbox');
  await mkdir(binDir, { recursive: true });
  await mkdir(credentialsDir, { recursive: true });
  const nodePath = join(binDir, 'node');
  await writeFile(nodePath, '#!/bin/sh\nprintf \'%s\\0\' "$0" "$@"\n');
  await chmod(nodePath, 0o755);
  return {
    nodePath,
    cliPath: join(root, 'dist', 'bin.js'),
    credentialsDir,
    logPath: join(credentialsDir, `wake ${name}.log`),
  };
}

/** What the job's program received, run from `line` as cron would run it. */
async function argvAfterCron(line: string, logPath: string, variant: CronVariant): Promise<string[]> {
  await rm(logPath, { force: true });
  const run = spawnSync('/bin/sh', ['-c', cronCommand(line, variant)], { env: {}, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return (await readFile(logPath, 'utf8')).split('\0').slice(0, -1);
}

describe('the crontab line as cron and /bin/sh read it', () => {
  it.each(nasty)('hands every argument over exactly when the paths hold %j', async (piece) => {
    const paths = await layout(piece);
    // A connected account's inbox is an address the service's inbox list gave.
    const inbox = `${piece}@acme.test`;
    const line = buildCronLine({
      schedule: '0 9 * * *',
      marker: 'agent-mailbox-watch:0123456789abcdef',
      ...paths,
      inbox,
    });
    expect(line.split('\n')).toHaveLength(1);
    expect(line.endsWith(' # agent-mailbox-watch:0123456789abcdef')).toBe(true);
    const expected = [
      paths.nodePath,
      paths.cliPath,
      'wake',
      '--credentials-dir',
      paths.credentialsDir,
      '--inbox',
      inbox,
    ];
    for (const variant of ['vixie', 'percent-only'] as const) {
      expect(await argvAfterCron(line, paths.logPath, variant), `${variant} cron`).toEqual(expected);
    }
    // What `watch status` shows as the command is what cron runs.
    expect(commandOfCronLine(line)).toBe(cronCommand(line, 'vixie'));
  });

  it('hands over paths that hold every nasty piece at once', async () => {
    const paths = await layout(nasty.join(' '));
    const inbox = `${nasty.join(' ')}@acme.test`;
    const line = buildCronLine({
      schedule: '0 9 * * *',
      marker: 'agent-mailbox-watch:fedcba9876543210',
      ...paths,
      inbox,
    });
    for (const variant of ['vixie', 'percent-only'] as const) {
      expect(await argvAfterCron(line, paths.logPath, variant)).toEqual([
        paths.nodePath,
        paths.cliPath,
        'wake',
        '--credentials-dir',
        paths.credentialsDir,
        '--inbox',
        inbox,
      ]);
    }
  });

  it.each(['nodePath', 'cliPath', 'credentialsDir', 'logPath', 'inbox'] as const)(
    'refuses a line break in %s instead of writing a broken crontab',
    (field) => {
      const spec = {
        schedule: '0 9 * * *',
        marker: 'm',
        nodePath: '/usr/bin/node',
        cliPath: '/opt/am/bin.js',
        credentialsDir: '/home/a/inbox',
        logPath: '/home/a/inbox/wake.log',
        inbox: 'ops@acme.test',
      };
      const error = (() => {
        try {
          buildCronLine({ ...spec, [field]: `${spec[field]}\n* * * * * /bin/evil` });
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(MailboxError);
      expect(error).toMatchObject({ code: 'watch_failed', details: { path: `${spec[field]}\n* * * * * /bin/evil` } });
      expect((error as MailboxError).message).toMatch(/contains a line break; a crontab entry is a single line/);
    },
  );
});
