import { describe, expect, it } from 'vitest';
import { forgetAllSecrets, redactSecrets, rememberSecret } from '../../../src/redact.js';
import { scanForSecrets } from '../../../src/policy/secret-scan.js';

// A time bound on its own file: a mutation run leaves it out (MUTATE_TESTS), since instrumented code
// runs slower than the bound allows on a loaded machine, and a mutant that makes the scan hang is
// caught by Stryker's timeout anyway.
describe('a JSON Web Token by structure', () => {
  it('keeps a long run of token characters cheap', async () => {
    const started = Date.now();
    await scanForSecrets([{ where: 'the attachment', text: 'a'.repeat(4 * 1024 * 1024) }]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('scans and redacts a run of megabytes while this process holds a secret, as a running server always does', async () => {
    forgetAllSecrets();
    rememberSecret('amk_the_inbox_own_key_0123456789');
    try {
      const run = 'a'.repeat(4 * 1024 * 1024);
      // A regular expression over such a run overflowed V8's backtracking stack (RangeError).
      expect(await scanForSecrets([{ where: 'the attachment', text: run }])).toEqual([]);
      expect(redactSecrets(`${run} amk_the_inbox_own_key_0123456789 ${run}`)).toBe(`${run} <secret redacted> ${run}`);
    } finally {
      forgetAllSecrets();
    }
  });
});
