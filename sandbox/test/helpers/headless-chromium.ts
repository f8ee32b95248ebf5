import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { cleanUpAfter } from './clean-up-after.js';

/** Debian's chromium (installed by .ci/run), driven by playwright-core; never a downloaded browser. */
export const chromiumPath = '/usr/bin/chromium';

/** Why the real-browser tests cannot run here, or undefined when they can. */
export const chromiumSkipReason = existsSync(chromiumPath)
  ? undefined
  : `${chromiumPath} is missing; install it with apt-get install -y chromium (as root).`;

/** A headless Chromium with a fresh profile, closed (and its profile removed) after the test. */
export async function launchHeadlessChromium(): Promise<BrowserContext> {
  const profile = await mkdtemp(join(tmpdir(), 'oauth-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  cleanUpAfter(async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  });
  return context;
}
