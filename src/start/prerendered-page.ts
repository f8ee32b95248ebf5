import type { PrerenderedPage } from '../bundle-assets.js';

export interface PageTarget {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  stdout: { isTTY?: boolean; write(text: string): unknown };
  stderr: { isTTY?: boolean; write(text: string): unknown };
}

/** Whether an argv can be a help or version request: only those pay for reading the pages. */
export function mayAskForPage(argv: readonly string[]): boolean {
  return (
    argv.length === 0 ||
    argv[0] === 'help' ||
    argv.includes('--help') ||
    argv.includes('-h') ||
    argv[0] === '--version' ||
    argv[0] === '-V'
  );
}

/**
 * The real program's exit code after answering from a page the build rendered with it, or undefined
 * when no page fits. A width-dependent page fits only output that is no terminal and not coloured.
 */
export function answerFromPage(
  pages: Readonly<Record<string, PrerenderedPage>> | undefined,
  target: PageTarget,
): number | undefined {
  const page = pages?.[target.argv.join('\0')];
  if (!page) return undefined;
  // isTTY is asked only of a width-dependent page: node builds a stream to answer it.
  const { stdout, stderr, env } = target;
  if (page.widthDependent && (stdout.isTTY || stderr.isTTY || env['FORCE_COLOR'] || env['CLICOLOR_FORCE']))
    return undefined;
  stdout.write(page.stdout);
  stderr.write(page.stderr);
  return page.exitCode;
}

/**
 * The pages as the package's front reads them (dist/help-pages.jsonl): line 1 maps each page's key
 * to the byte range of its own line, counted from the start of line 2; then one page per line. A
 * help request decodes and parses the one page it shows, not all of them (~250 KB).
 */
export function pagesFile(pages: Readonly<Record<string, PrerenderedPage>>): string {
  const index: Record<string, [number, number]> = {};
  const lines: string[] = [];
  let at = 0;
  for (const [key, page] of Object.entries(pages)) {
    const line = JSON.stringify(page);
    const bytes = Buffer.byteLength(line);
    index[key] = [at, at + bytes];
    lines.push(line);
    at += bytes + 1;
  }
  return [JSON.stringify(index), ...lines].join('\n') + '\n';
}

export function readPage(file: Buffer, key: string): PrerenderedPage | undefined {
  const indexEnd = file.indexOf(10);
  if (indexEnd < 0) return undefined;
  const index = JSON.parse(file.toString('utf8', 0, indexEnd)) as Record<string, [number, number]>;
  const range = Object.hasOwn(index, key) ? index[key] : undefined;
  const base = indexEnd + 1;
  return range ? (JSON.parse(file.toString('utf8', base + range[0], base + range[1])) as PrerenderedPage) : undefined;
}
