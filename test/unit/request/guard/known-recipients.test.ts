import { describe, expect, it } from 'vitest';
import { judgeDomain } from '../../../../src/trust/sender-authentication.js';

const passedDmarcFor = (fields: string[], authservId: string, domain: string) =>
  judgeDomain(fields, authservId, domain).authenticated;

describe('sender authentication for the known mode', () => {
  const ours = 'agent-mailbox.test';
  it("trusts a DMARC pass for the From domain in the topmost field of the service's own authserv-id", () => {
    expect(
      passedDmarcFor(
        [`${ours}; spf=pass smtp.mailfrom=x.test; dkim=pass header.d=x.test; dmarc=pass (p=none) header.from=x.test`],
        ours,
        'x.test',
      ),
    ).toBe(true);
  });

  it('trusts nothing else: another domain, a fail, another authserv-id, or a later field of ours', () => {
    expect(passedDmarcFor([`${ours}; dmarc=pass header.from=other.test`], ours, 'x.test')).toBe(false);
    expect(passedDmarcFor([`${ours}; dmarc=fail header.from=x.test`], ours, 'x.test')).toBe(false);
    expect(passedDmarcFor([`mx.evil.test; dmarc=pass header.from=x.test`], ours, 'x.test')).toBe(false);
    expect(
      passedDmarcFor(
        [`${ours}; dmarc=fail header.from=x.test`, `${ours}; dmarc=pass header.from=x.test`],
        ours,
        'x.test',
      ),
    ).toBe(false);
    expect(passedDmarcFor([`${ours}; dkim=pass (dmarc=pass header.from=x.test) header.d=x.test`], ours, 'x.test')).toBe(
      false,
    );
  });
});
