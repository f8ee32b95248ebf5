import { spawn } from 'node:child_process';

/** Opens a URL in the person's browser; resolves once the opener started (never waits for the browser). */
export type BrowserOpener = (url: string) => Promise<void>;

/** BROWSER (as xdg-utils: `%s` or appended, first of a `:` list), else `open`; the URL is never shell text. */
export function browserOpener(env: Readonly<Record<string, string | undefined>>): BrowserOpener {
  const browser = env.BROWSER?.split(':')
    .map((entry) => entry.trim())
    .find((entry) => entry !== '');
  if (browser !== undefined) return (url) => runBrowserCommand(browser, url);
  return async (url) => {
    // Loaded only here: connect is the one command that opens a browser.
    const { default: open } = await import('open');
    const child = await open(url);
    child.on('error', () => undefined);
  };
}

function runBrowserCommand(command: string, url: string): Promise<void> {
  const isWindows = process.platform === 'win32';
  const line = command.includes('%s')
    ? command.replaceAll('%s', isWindows ? `"${url}"` : '"$1"')
    : `${command} ${isWindows ? `"${url}"` : '"$1"'}`;
  const child = isWindows
    ? spawn(line, { shell: true, detached: true, stdio: 'ignore', windowsHide: true })
    : spawn('/bin/sh', ['-c', line, 'browser', url], { detached: true, stdio: 'ignore' });
  return new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
