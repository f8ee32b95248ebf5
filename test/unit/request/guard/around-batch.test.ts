import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { forgetAllSecrets } from '../../../../src/redact.js';
import { checkBatch } from '../../../../src/request/guard/check-batch.js';
import { fakeCheck, mailBatch } from '../../../helpers/fake-check-context.js';
import { refusal } from '../../../helpers/mailbox-refusal.js';

/**
 * What runs around every checked batch: before a send is judged, the secret scan learns by value
 * the stored secrets of the credentials directory in use, of the configured default directory and
 * of the user's config folder, so a key of no known shape (another service's, or an old one) that
 * this process never loaded is still refused.
 */

// Shaped like nothing the scan knows by structure: only its value can find it. The redactor finds a
// long enough piece of a known secret too, so no two of these share one.
const shapeless = {
  own: 'Tuba7-Quill3-Marsh9-Orbit4',
  default: 'Fern2-Oxbow8-Lilac5-Comet1',
  config: 'Yak6-Pewter4-Gorse2-Minnow7',
  far: 'Heron3-Basalt9-Tulip6-Quark5',
};

async function storeApiKey(dir: string, apiKey: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, 'credentials.json'), JSON.stringify({ apiKey }), { mode: 0o600 });
}

describe('the stored secrets a checked batch is scanned for', () => {
  beforeEach(() => forgetAllSecrets());

  it("refuses a mail carrying the apiKey of the call's own credentials directory", async () => {
    const check = await fakeCheck();
    await storeApiKey(check.stateDir, shapeless.own);
    const request = mailBatch([{ to: ['bob@example.test'], subject: 'Notes', body: `key: ${shapeless.own}` }]);
    const error = await refusal(checkBatch({ kind: 'batch', request }, check.context));
    expect(error.message).toContain("this inbox's own apiKey or token");
  });

  it("refuses one stored in the configured default directory and in the user's config folder, read afresh by each call", async () => {
    for (const where of ['default', 'config'] as const) {
      forgetAllSecrets();
      const check = await fakeCheck();
      const defaultDir = join(check.root, 'default-credentials');
      const context = {
        ...check.context,
        config: async () => ({ ...(await check.context.config()), credentialsDir: defaultDir }),
      };
      const dir = where === 'default' ? defaultDir : join(check.userConfigDir, 'other-inbox');
      await storeApiKey(dir, shapeless[where]);
      const request = mailBatch([{ to: ['bob@example.test'], subject: 'Notes', body: shapeless[where] }]);
      const error = await refusal(checkBatch({ kind: 'batch', request }, context));
      expect(error.message, where).toContain("this inbox's own apiKey or token");
    }
  });

  it('lets the same mail go when no directory the tool knows holds the key', async () => {
    const check = await fakeCheck();
    await storeApiKey(join(check.root, 'elsewhere'), shapeless.far);
    const request = mailBatch([{ to: ['bob@example.test'], subject: 'Notes', body: shapeless.far }]);
    const outcome = await checkBatch({ kind: 'batch', request }, check.context);
    expect(outcome?.settle).toBeTypeOf('function');
  });
});
