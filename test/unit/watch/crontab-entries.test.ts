import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import {
  buildCronLine,
  buildWakeShellCommand,
  commandOfCronLine,
  findCronEntry,
  removeCronEntry,
  upsertCronEntry,
} from '../../../src/watch/crontab-entries.js';

const spec = {
  schedule: '0 9 * * *',
  nodePath: '/usr/bin/node',
  cliPath: '/opt/agent mailbox/dist/bin.js',
  credentialsDir: "/home/o'neil/100%/inbox",
  logPath: "/home/o'neil/100%/inbox/wake.log",
  marker: 'agent-mailbox-watch:0123456789abcdef',
};
const userTable = 'MAILTO=""\n# my backups\n30 2 * * * /usr/local/bin/backup\n';

describe('crontab entries', () => {
  it('builds one line with absolute quoted paths, the log redirect and the marker at the end', () => {
    const line = buildCronLine(spec);
    expect(line.startsWith('0 9 * * * /usr/bin/node ')).toBe(true);
    expect(line).toContain("'/opt/agent mailbox/dist/bin.js' wake --credentials-dir ");
    expect(line).toContain('2>&1 # agent-mailbox-watch:0123456789abcdef');
    expect(line).not.toContain('\n');
  });

  it('escapes % for crontab and restores it when reading the command back', () => {
    const line = buildCronLine(spec);
    expect(line).toContain('100\\%');
    expect(commandOfCronLine(line)).toContain("'/home/o'\\''neil/100%/inbox'");
  });

  it('adds the entry once and replaces it in place on a second upsert', () => {
    const line = buildCronLine(spec);
    const once = upsertCronEntry(userTable, spec.marker, line);
    const twice = upsertCronEntry(once, spec.marker, line);
    expect(twice).toBe(once);
    expect(once.split('\n').filter((l) => l.includes(spec.marker))).toHaveLength(1);
    expect(once.startsWith(userTable)).toBe(true);
  });

  it('removes exactly the entry of its marker and leaves every other line as it was', () => {
    const other = buildCronLine({ ...spec, marker: 'agent-mailbox-watch:ffffffffffffffff' });
    const table = upsertCronEntry(
      upsertCronEntry(userTable, spec.marker, buildCronLine(spec)),
      'agent-mailbox-watch:ffffffffffffffff',
      other,
    );
    const removed = removeCronEntry(table, spec.marker);
    expect(removed).toBe(`${userTable}${other}\n`);
    expect(findCronEntry(removed, spec.marker)).toBeUndefined();
  });

  it('ignores a commented-out copy of the entry', () => {
    const table = `# ${buildCronLine(spec)}\n`;
    expect(findCronEntry(table, spec.marker)).toBeUndefined();
    expect(removeCronEntry(table, spec.marker)).toBe(table);
  });

  it('turns an empty table into just the entry, and back into an empty table', () => {
    const line = buildCronLine(spec);
    const table = upsertCronEntry('', spec.marker, line);
    expect(table).toBe(`${line}\n`);
    expect(removeCronEntry(table, spec.marker)).toBe('');
  });

  it('names the inbox of a connected account, quoted, only when there is one', () => {
    expect(buildWakeShellCommand({ ...spec, inbox: "ops@acme.test's" })).toContain(
      " wake --credentials-dir '/home/o'\\''neil/100%/inbox' --inbox 'ops@acme.test'\\''s' >> ",
    );
    expect(buildWakeShellCommand(spec)).not.toContain('--inbox');
  });

  it('refuses a path with a line break and says how to go on', () => {
    for (const [key, value] of [
      ...(['nodePath', 'cliPath', 'credentialsDir', 'logPath'] as const).map((k) => [k, spec[k]] as const),
      ['inbox', 'ops@acme.test'] as const,
    ]) {
      const error = (() => {
        try {
          buildCronLine({ ...spec, [key]: `${value}\n* * * * * /bin/evil #` });
        } catch (caught) {
          return caught as MailboxError;
        }
        throw new Error(`no error for ${key}`);
      })();
      expect(error).toBeInstanceOf(MailboxError);
      expect(error.code).toBe('watch_failed');
      expect(error.hint).toContain('without line breaks, then run watch install again');
    }
  });

  it('reads the command back from a line with spaces before and between the schedule fields', () => {
    expect(commandOfCronLine('  */15  9-17 *\t* 1-5   /usr/bin/node cli.js wake 100\\% \\\\x')).toBe(
      '/usr/bin/node cli.js wake 100% \\x',
    );
  });

  it('finds an entry with spaces after its marker, and not a commented-out one indented', () => {
    const line = buildCronLine(spec);
    expect(findCronEntry(`${line}   \n`, spec.marker)).toBe(`${line}   `);
    expect(findCronEntry(`   # ${line}\n`, spec.marker)).toBeUndefined();
  });

  it('replaces an entry on the first line in place', () => {
    const table = upsertCronEntry('', spec.marker, 'old # ' + spec.marker);
    expect(upsertCronEntry(`${table}30 2 * * * /usr/local/bin/backup\n`, spec.marker, buildCronLine(spec))).toBe(
      `${buildCronLine(spec)}\n30 2 * * * /usr/local/bin/backup\n`,
    );
  });
});
