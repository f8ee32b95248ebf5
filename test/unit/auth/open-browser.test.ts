import { readFile, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserOpener } from '../../../src/auth/oauth/open-browser.js';
import { pollUntil } from '../../../sandbox/test/helpers/sandbox.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/** A stand-in browser that writes each argument it got on a line of `out`. */
async function recordingBrowser(): Promise<{ script: string; out: string }> {
  const dir = await tempCredentialsDir();
  const { mkdir } = await import('node:fs/promises');
  await mkdir(dir, { recursive: true });
  const out = join(dir, 'args.txt');
  const script = join(dir, 'browser.sh');
  await writeFile(script, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${out}'; done\n`);
  await chmod(script, 0o755);
  return { script, out };
}

const url = 'http://127.0.0.1:1/oauth/authorize?a=1&b=$(touch /tmp/never)&c=`x`;d';

describe.skipIf(process.platform === 'win32')("the person's browser from BROWSER", () => {
  it('appends the URL as one argument, never as shell text', async () => {
    const { script, out } = await recordingBrowser();
    await browserOpener({ BROWSER: script })(url);
    expect(await pollUntil(async () => (await readFile(out, 'utf8').catch(() => '')) || undefined, 5000)).toBe(
      `${url}\n`,
    );
  });

  it('puts the URL where %s stands, and takes the first of several commands', async () => {
    const { script, out } = await recordingBrowser();
    await browserOpener({ BROWSER: `${script} --new-window %s:/nonexistent/other-browser` })(url);
    expect(await pollUntil(async () => (await readFile(out, 'utf8').catch(() => '')) || undefined, 5000)).toBe(
      `--new-window\n${url}\n`,
    );
  });
});
