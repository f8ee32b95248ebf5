import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The project's own ESLint configuration over fixtures that break a rule on purpose (kept out of
// `npm run lint` by the config's ignores): the rule must fire, or the tree's clean lint proves nothing.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const eslint = new ESLint({ cwd: root, ignore: false });

async function ruleIds(files: string[]): Promise<string[]> {
  const results = await eslint.lintFiles(files.map((f) => resolve(root, f)));
  return results.flatMap((r) =>
    r.messages.map((m) => `${r.filePath.slice(root.length + 1)}: ${m.ruleId ?? m.message}`),
  );
}

/** The rules that fire on `code` were it the file at `path` of src/. */
async function ruleIdsAt(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, path) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('lint rules', () => {
  it('fail on a run-time import cycle between two .ts files that import each other with .js specifiers', async () => {
    expect(await ruleIds(['test/fixtures/lint/cycle/first.ts', 'test/fixtures/lint/cycle/second.ts'])).toEqual([
      'test/fixtures/lint/cycle/first.ts: import-x/no-cycle',
      'test/fixtures/lint/cycle/second.ts: import-x/no-cycle',
    ]);
  });

  it('count a dynamic import() in a cycle', async () => {
    expect(
      await ruleIds(['test/fixtures/lint/dynamic-cycle/table.ts', 'test/fixtures/lint/dynamic-cycle/entry.ts']),
    ).toEqual([
      'test/fixtures/lint/dynamic-cycle/table.ts: import-x/no-cycle',
      'test/fixtures/lint/dynamic-cycle/entry.ts: import-x/no-cycle',
    ]);
  });

  it('let type-only imports that point back at each other pass: tsc erases them', async () => {
    expect(await ruleIds(['test/fixtures/lint/type-only/left.ts', 'test/fixtures/lint/type-only/right.ts'])).toEqual(
      [],
    );
  });

  it("let only the gate send to the service: no other module imports the HTTP layer's senders or the JMAP client", async () => {
    const bypasses: [string, string][] = [
      [
        'src/request/send-around.ts',
        "import { sendHttp } from '../http/send-http.js';\nexport const send = sendHttp;\n",
      ],
      [
        'src/mail/send-around.ts',
        "import { httpRequest } from '../http/http-request.js';\nexport const send = httpRequest;\n",
      ],
      [
        'src/watch/send-around.ts',
        "import { openEventStream } from '../http/open-event-stream.js';\nexport const open = openEventStream;\n",
      ],
      [
        'src/presets/send-around.ts',
        "import { JmapClient } from '../jmap/jmap-client.js';\nexport const client = JmapClient;\n",
      ],
      [
        'src/operations/send-around.ts',
        "import { sendToService } from '../gate/send-to-service.js';\nexport const send = sendToService;\n",
      ],
      ['src/gate/send-around.ts', "import { sendHttp } from '../http/send-http.js';\nexport const send = sendHttp;\n"],
      [
        'src/auth/send-around.ts',
        "import { nodeHttpFetch } from '../http/node-http-fetch.js';\nexport const send = nodeHttpFetch;\n",
      ],
    ];
    for (const [path, code] of bypasses) expect(await ruleIdsAt(path, code), path).toEqual(['no-restricted-imports']);
    // The gate's own sender, and the token chain through it, are what every request passes.
    expect(
      await ruleIdsAt(
        'src/gate/send-to-service.ts',
        "import { sendHttp } from '../http/send-http.js';\nexport const send = sendHttp;\n",
      ),
    ).toEqual([]);
    expect(
      await ruleIdsAt(
        'src/auth/renew.ts',
        "import { requestService } from '../gate/send-to-service.js';\nexport const send = requestService;\n",
      ),
    ).toEqual([]);
  });

  it('keep the client and the sandbox apart: neither imports the other by path (any depth, dynamic too) or package name', async () => {
    const crossings: [string, string, string[]][] = [
      [
        'src/operations/plant.ts',
        "import { startSandbox } from '../../sandbox/src/start-sandbox.js';\nexport const s = startSandbox;\n",
        ['import-x/no-restricted-paths'],
      ],
      [
        'src/plant.ts',
        "export const s = await import('../sandbox/src/start-sandbox.js');\n",
        ['import-x/no-restricted-paths'],
      ],
      ['src/plant.ts', "import x from 'agent-mailbox-sandbox';\nexport const s = x;\n", ['no-restricted-syntax']],
      [
        'src/mail/plant.ts',
        "export { startSandbox } from 'agent-mailbox-sandbox/start-sandbox';\n",
        ['no-restricted-syntax'],
      ],
      [
        'sandbox/src/auth/plant.ts',
        "import { MailboxError } from '../../../src/errors.js';\nexport const s = MailboxError;\n",
        ['import-x/no-restricted-paths'],
      ],
      [
        'sandbox/src/embedded/store/plant.ts',
        "export const s = await import('../../../../src/wire-constants.js');\n",
        ['import-x/no-restricted-paths'],
      ],
      [
        'sandbox/src/plant.ts',
        "import { runCli } from '../../test/helpers/run-cli.js';\nexport const s = runCli;\n",
        ['import-x/no-restricted-paths'],
      ],
      ['sandbox/src/plant.ts', "export * from 'agent-mailbox';\n", ['no-restricted-syntax']],
    ];
    // A package name that resolves (sandbox/dist/ built) fires the path rule as well.
    for (const [path, code, rules] of crossings)
      expect(await ruleIdsAt(path, code), `${path}: ${code}`).toEqual(expect.arrayContaining(rules));
    // Each side's own modules and its dependencies stay allowed.
    expect(
      await ruleIdsAt(
        'sandbox/src/plant.ts',
        "import { z } from 'zod';\nimport { readFile } from 'node:fs/promises';\nimport { jmapCapabilities } from './wire-constants.js';\nexport const s = [z, readFile, jmapCapabilities];\n",
      ),
    ).toEqual([]);
    expect(
      await ruleIdsAt(
        'src/plant.ts',
        "import * as z from 'zod';\nimport { jmapCapabilities } from './wire-constants.js';\nexport const s = [z, jmapCapabilities];\n",
      ),
    ).toEqual([]);
  });

  it("keep zod's `z` out of the client's imports, so the bundles keep only the zod a module reads", async () => {
    const whole = "import { z } from 'zod';\nexport const name = z.string();\n";
    expect(await ruleIdsAt('src/request/zod-whole.ts', whole)).toEqual(['no-restricted-syntax']);
    const shaken = "import * as z from 'zod';\nexport const name = z.string();\n";
    expect(await ruleIdsAt('src/request/zod-shaken.ts', shaken)).toEqual([]);
    expect(await ruleIdsAt('src/gate/zod-whole.ts', whole)).toEqual(['no-restricted-syntax']);
  });
});
