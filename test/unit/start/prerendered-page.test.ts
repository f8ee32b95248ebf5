import { describe, expect, it } from 'vitest';
import type { PrerenderedPage } from '../../../src/bundle-assets.js';
import { pagesFile, readPage } from '../../../src/start/prerendered-page.js';

/** The package front's pages file: each page read alone, by the byte range its index line gives. */

const page = (stdout: string, exitCode = 0): PrerenderedPage => ({
  stdout,
  stderr: '',
  exitCode,
  widthDependent: false,
});

describe('pagesFile and readPage', () => {
  const pages: Record<string, PrerenderedPage> = {
    help: page('Usage: agent-mailbox …\n'),
    'help\0presets': page('Presets — «list_inbox», ✉ and 🙂 (multi-byte before the next page)\n'),
    '--version': page('0.1.0\n'),
    'nope\0--help': { stdout: '', stderr: 'error: unknown command\n', exitCode: 1, widthDependent: true },
  };
  const file = Buffer.from(pagesFile(pages));

  it('reads back every page exactly, multi-byte text before and after included', () => {
    for (const [key, expected] of Object.entries(pages)) expect(readPage(file, key), key).toEqual(expected);
  });

  it('answers undefined for a key it does not hold, inherited property names too', () => {
    for (const key of ['help\0nothing', '', 'constructor', '__proto__', 'toString'])
      expect(readPage(file, key), key).toBeUndefined();
    expect(readPage(Buffer.from(''), 'help')).toBeUndefined();
  });

  it('parses only the page asked for: another page that does not parse does not matter', () => {
    const text = pagesFile(pages);
    // The same number of bytes, so every range still holds; the help page is no longer JSON.
    const damaged = Buffer.from(text.replace('{"stdout":"Usage', '["stdout":"Usage'));
    expect(() => readPage(damaged, 'help')).toThrow();
    expect(readPage(damaged, '--version')).toEqual(pages['--version']);
    expect(readPage(damaged, 'help\0presets')).toEqual(pages['help\0presets']);
  });
});
