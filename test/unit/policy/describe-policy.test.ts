import { describe, expect, it } from 'vitest';
import { describePolicy } from '../../../src/policy/describe-policy.js';
import { effectivePolicy } from '../../../src/policy/effective-policy.js';
import type { LoadedLayer } from '../../../src/policy/policy-layers.js';

const layer = (l: LoadedLayer['layer'], policy: LoadedLayer['policy']): LoadedLayer => ({
  layer: l,
  path: `/${l}.json`,
  present: true,
  policy,
});

describe('the rules as the model reads them', () => {
  it('says who mail may go to, what needs a yes, the limits and the scan, never how to change them', () => {
    const lines = describePolicy(
      effectivePolicy([
        layer('user', {
          version: 1,
          send: { mode: 'confirm', allow: ['example.org'], block: ['evil.test'], maxSendsPerHour: 5 },
        }),
        layer('inbox', { version: 1, newInboxes: 'off' }),
      ]),
    );
    const text = lines.join('\n');
    expect(text).toContain("needs your operator's yes");
    expect(text).toContain('example.org');
    expect(text).toContain('Never to: evil.test');
    expect(text).toContain('at most 5 sends per hour');
    expect(text).toContain('No new inbox');
    expect(text).not.toMatch(/allow-send|policy set|agent-mailbox/);
  });

  it('says plainly when sending is off or open', () => {
    expect(describePolicy(effectivePolicy([layer('machine', { version: 1, send: { mode: 'off' } })]))[0]).toBe(
      'Sending is off: no mail leaves this inbox.',
    );
    expect(describePolicy(effectivePolicy([]))[0]).toBe('Mail may go to any address not blocked.');
  });
});
