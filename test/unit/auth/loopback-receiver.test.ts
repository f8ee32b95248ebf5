import { describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../../../src/auth/oauth/loopback-receiver.js';
import { MailboxError } from '../../../src/errors.js';
import { cleanUpAfter } from '../../../sandbox/test/helpers/clean-up-after.js';

async function receiver() {
  const listening = await listenOnLoopback();
  cleanUpAfter(() => listening.close());
  return listening;
}

describe('the loopback redirect listener (RFC 8252 §7.3)', () => {
  it('listens on 127.0.0.1 at an ephemeral port, at /callback', async () => {
    const { redirectUri } = await receiver();
    expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(Number(new URL(redirectUri).port)).toBeGreaterThan(0);
  });

  it('hands over the answer with the awaited state and shows the outcome, uncached and without a Referer', async () => {
    const listening = await receiver();
    const waiting = listening.next('s-1', 5000, new AbortController().signal);
    const page = fetch(`${listening.redirectUri}?code=c-1&state=s-1&iss=https%3A%2F%2Fauth.example`);
    const answer = await waiting;
    expect(Object.fromEntries(answer.params)).toEqual({ code: 'c-1', state: 's-1', iss: 'https://auth.example' });
    answer.finish({ ok: true, message: 'Connected <b>now</b>' });
    const response = await page;
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await response.text()).toContain('Connected &#60;b&#62;now&#60;/b&#62;');
  });

  it('turns away another state, other paths and methods, and keeps waiting', async () => {
    const listening = await receiver();
    const waiting = listening.next('right', 5000, new AbortController().signal);
    expect((await fetch(`${listening.redirectUri}?code=x&state=wrong`)).status).toBe(400);
    expect((await fetch(`${listening.redirectUri.replace('/callback', '/other')}?state=right`)).status).toBe(404);
    expect((await fetch(`${listening.redirectUri}?state=right`, { method: 'POST' })).status).toBe(404);
    const page = fetch(`${listening.redirectUri}?code=y&state=right`);
    const answer = await waiting;
    expect(answer.params.get('code')).toBe('y');
    answer.finish({ ok: false, message: 'Not this time.' });
    expect((await page).status).toBe(400);
  });

  it('gives up after the wait with a timeout that says what to do, and on cancel', async () => {
    const listening = await receiver();
    const late = (await listening.next('s', 50, new AbortController().signal).catch((e: unknown) => e)) as MailboxError;
    expect(late).toMatchObject({ code: 'timeout', message: 'Nobody finished the sign-in and consent within 0 s.' });
    expect(late.hint).toMatch(/^Run connect again, open the link it prints/);
    const stop = new AbortController();
    const cancelled = listening.next('s', 5000, stop.signal).catch((e: unknown) => e);
    stop.abort();
    expect(await cancelled).toMatchObject({ code: 'cancelled' });
  });
});
