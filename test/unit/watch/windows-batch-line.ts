/**
 * An independent reading of one line of a batch file, as cmd.exe and then node see it: `%%` becomes
 * `%` (a lone `%` would start a variable: rejected), `&|<>^()` outside double quotes would be
 * cmd.exe's (rejected, but for the trailing `>> "log" 2>&1`), and the rest is split into argv by
 * the MSVC rules node uses on Windows.
 */
export function readBatchLine(line: string): { argv: string[]; log: string } {
  let expanded = '';
  for (let i = 0; i < line.length; i += 1) {
    if (line[i] !== '%') {
      expanded += line[i];
      continue;
    }
    if (line[i + 1] !== '%') throw new Error(`a lone % at ${i} would start a variable: ${line}`);
    expanded += '%';
    i += 1;
  }
  const redirect = / >> "([^"]*)" 2>&1$/.exec(expanded);
  if (!redirect) throw new Error(`no redirection to the log at the end: ${expanded}`);
  const command = expanded.slice(0, redirect.index);
  let quoted = false;
  for (const ch of command) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && '&|<>^()'.includes(ch)) throw new Error(`cmd.exe would act on ${ch} in: ${command}`);
  }
  return { argv: msvcArgv(command), log: redirect[1] ?? '' };
}

/** The MSVC (2008 and later) rules for splitting a command line into argv. */
export function msvcArgv(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let started = false;
  let quoted = false;
  let i = 0;
  while (i < line.length) {
    const ch = line[i];
    if (ch === '\\') {
      let n = 0;
      while (line[i] === '\\') {
        n += 1;
        i += 1;
      }
      if (line[i] === '"') {
        current += '\\'.repeat(Math.floor(n / 2));
        if (n % 2 === 1) {
          current += '"';
          i += 1;
        }
      } else current += '\\'.repeat(n);
      started = true;
      continue;
    }
    if (ch === '"') {
      if (quoted && line[i + 1] === '"') {
        current += '"';
        i += 2;
        continue;
      }
      quoted = !quoted;
      started = true;
      i += 1;
      continue;
    }
    if ((ch === ' ' || ch === '\t') && !quoted) {
      if (started) args.push(current);
      current = '';
      started = false;
      i += 1;
      continue;
    }
    current += ch;
    started = true;
    i += 1;
  }
  if (started) args.push(current);
  return args;
}
