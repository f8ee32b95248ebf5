/**
 * Quoting for the Windows job: the task runs `cmd.exe /d /v:off /s /c ""<batch file>""`, whose one command
 * line three readers see:
 * - cmd.exe first replaces `%...%` (quotes do not stop it) and reads `%%` as `%`: every `%` is doubled;
 * - then it finds `&`, `|`, `<`, `>`, `^`, `(`, `)` outside double quotes: every value is in double quotes
 *   (`!` stays plain with delayed expansion off);
 * - node splits its command line by the MSVC rules: backslashes before the closing quote are doubled.
 * A double quote cannot be carried through all three, and no Windows path can contain one: refused.
 */

/** Why a value cannot go into the batch file's line, or undefined when it can. */
export function batchRefusal(value: string): string | undefined {
  return value.includes('"')
    ? 'contains a double quote, which cmd.exe cannot carry inside a quoted argument (and no Windows path holds)'
    : undefined;
}

/** One value as one argument of the batch file's command line. */
export function batchArgument(value: string): string {
  const argv = value.replace(/(\\+)$/, '$1$1');
  return `"${argv.replace(/%/g, '%%')}"`;
}

/**
 * Task Scheduler and cmd.exe's `/c` both expand `%NAME%` in the batch file's path, with no escape: one `%`
 * is left as it is, two could make a variable of the text between them.
 */
export function taskArgumentRefusal(path: string): string | undefined {
  if (path.includes('"')) return 'contains a double quote, which no Windows path holds';
  if ((path.match(/%/g) ?? []).length > 1)
    return 'contains more than one %, which Task Scheduler and cmd.exe would read as an environment variable';
  return undefined;
}

/**
 * /d skips AutoRun commands, /v:off keeps `!` plain, and /s with the doubled quotes makes cmd.exe drop
 * exactly the outer pair, so the path stays quoted whatever it holds (spaces, `&`, `^`, parentheses).
 */
export function taskArguments(batchPath: string): string {
  return `/d /v:off /s /c ""${batchPath}""`;
}
