import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuthorizationRequest } from './authorization-request.js';

const cookieName = 'amx_browser';
const signInLifetimeMs = 12 * 3600 * 1000;
const consentLifetimeMs = 10 * 60_000;
const maxPendingConsents = 1000;

/** A consent page waiting for the person's answer; the request itself stays on the server. */
export interface PendingConsent {
  browserId: string;
  personId: string;
  request: AuthorizationRequest;
  expiresAt: number;
}

/**
 * The browser side of the consent flow, in memory: a random cookie names the browser; forms carry a
 * CSRF token derived from it (an HMAC under a per-process key), so a page elsewhere can neither sign
 * a browser in nor approve for it; sign-ins and pending consents are bound to that browser.
 */
export class BrowserSessions {
  private readonly csrfKey = randomBytes(32);
  private readonly signedIn = new Map<string, { personId: string; until: number }>();
  private readonly consents = new Map<string, PendingConsent>();

  constructor(private readonly now: () => number) {}

  /** The browser id of a request's cookie, if it has a well-formed one. */
  browserOf(req: IncomingMessage): string | undefined {
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const [name, value] = part.trim().split('=');
      if (name === cookieName && value !== undefined && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
    }
    return undefined;
  }

  /** The request's browser id, or a new one with the Set-Cookie header that gives it to the browser. */
  ensureBrowser(req: IncomingMessage): { browserId: string; setCookie?: string } {
    const known = this.browserOf(req);
    if (known) return { browserId: known };
    const browserId = randomBytes(32).toString('base64url');
    // Lax: the cookie comes along when the app sends the browser here, never on a cross-site POST.
    return { browserId, setCookie: `${cookieName}=${browserId}; Path=/; HttpOnly; SameSite=Lax` };
  }

  /** The CSRF token the forms of this browser carry. */
  csrfToken(browserId: string): string {
    return createHmac('sha256', this.csrfKey).update(browserId).digest('base64url');
  }

  /** Whether a form's token belongs to this browser. */
  isCsrfValid(browserId: string, token: string | null): boolean {
    const expected = Buffer.from(this.csrfToken(browserId));
    const given = Buffer.from(token ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** The person signed in on this browser, if the sign-in is still good. */
  personOf(browserId: string): string | undefined {
    const entry = this.signedIn.get(browserId);
    if (!entry || entry.until <= this.now()) return undefined;
    return entry.personId;
  }

  /** Signs a person in on this browser. */
  signIn(browserId: string, personId: string): void {
    for (const [id, entry] of this.signedIn) if (entry.until <= this.now()) this.signedIn.delete(id);
    this.signedIn.set(browserId, { personId, until: this.now() + signInLifetimeMs });
  }

  /** Signs this browser out. */
  signOut(browserId: string): void {
    this.signedIn.delete(browserId);
  }

  /** Keeps a request while its consent page is shown; returns the id the form sends back. */
  holdConsent(browserId: string, personId: string, request: AuthorizationRequest): string {
    const now = this.now();
    for (const [id, pending] of this.consents) if (pending.expiresAt <= now) this.consents.delete(id);
    if (this.consents.size >= maxPendingConsents) this.consents.delete(this.consents.keys().next().value ?? '');
    const id = randomBytes(24).toString('base64url');
    this.consents.set(id, { browserId, personId, request, expiresAt: now + consentLifetimeMs });
    return id;
  }

  /** The pending consent `id` when it belongs to this browser and has not expired. */
  pendingConsent(id: string, browserId: string): PendingConsent | undefined {
    const pending = this.consents.get(id);
    if (!pending || pending.browserId !== browserId || pending.expiresAt <= this.now()) return undefined;
    return pending;
  }

  /** Ends a pending consent (answered). */
  dropConsent(id: string): void {
    this.consents.delete(id);
  }
}
