import { describe, expect, it } from 'vitest';
import * as client from '../../../src/wire-constants.js';
import * as sandbox from '../../../sandbox/src/wire-constants.js';

// The client and the sandbox are published apart and share no code: each keeps its own copy of the
// wire's facts, and the copies must say the same thing, or a misreading would pass both sides.
describe('wire constants', () => {
  const names = Object.keys(sandbox) as (keyof typeof sandbox)[];

  it('the sandbox holds the facts it serves: paths, proof of work, usernames, capabilities, its settings file', () => {
    expect(names.sort()).toEqual([
      'authPaths',
      'jmapCapabilities',
      'jmapSessionPath',
      'liveScryptSalt',
      'sandboxSettingsFile',
      'sandboxSettingsFormat',
      'scryptParams',
      'usernameLength',
      'usernamePattern',
    ]);
  });

  it.each(names)('%s is the same on both sides', (name) => {
    const mine: unknown = sandbox[name];
    const theirs: unknown = (client as Record<string, unknown>)[name];
    // A RegExp compares by its source and flags.
    const plain = (value: unknown): unknown => (value instanceof RegExp ? String(value) : value);
    expect(theirs, `the client's src/wire-constants.ts has no ${name}`).toBeDefined();
    expect(plain(mine)).toEqual(plain(theirs));
  });
});
