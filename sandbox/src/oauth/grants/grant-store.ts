import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { JsonStoreFile } from '../json-store-file.js';
import { oauthScopes, type OAuthScope } from '../oauth-scopes.js';

/** Refresh tokens expire after 90 idle days; each rotation starts a new 90 days (spec §3, §8). */
export const refreshLifetimeMs = 90 * 24 * 3600 * 1000;

/** Prefix of refresh tokens, so a leaked one is recognisable (and redactable) by its shape. */
export const refreshTokenPrefix = 'amr_';

/** What a person approved for one client: the thing a refresh token renews and a revocation ends. */
export interface GrantRecord {
  id: string;
  personId: string;
  clientId: string;
  scopes: OAuthScope[];
  /** The resource indicator (RFC 8707) every access token of the grant is bound to. */
  resource: string;
  /** The inbox chosen on the consent page. */
  defaultAccountId?: string;
  /** Milliseconds since the epoch, on the sandbox's clock. */
  createdAt: number;
  lastRefreshedAt?: number;
  revokedAt?: number;
  revokedBecause?: string;
  refresh: {
    /** SHA-256 of the current refresh token; the token itself is never kept. */
    currentHash: string;
    expiresAt: number;
    /** Hashes of rotated-out tokens: presenting one again revokes the grant (spec §3). */
    superseded: Array<{ hash: string; at: number }>;
  };
}

const grantSchema = z.object({
  id: z.string().min(1),
  personId: z.string().min(1),
  clientId: z.string().min(1),
  scopes: z.array(z.enum(oauthScopes)),
  resource: z.string().min(1),
  defaultAccountId: z.string().optional(),
  createdAt: z.number(),
  lastRefreshedAt: z.number().optional(),
  revokedAt: z.number().optional(),
  revokedBecause: z.string().optional(),
  refresh: z.object({
    currentHash: z.string(),
    expiresAt: z.number(),
    superseded: z.array(z.object({ hash: z.string(), at: z.number() })),
  }),
});
const grantsFile = z.object({ version: z.literal(1), grants: z.array(grantSchema) });

/** A refresh token as the store finds it. */
export type RefreshLookup = { grant: GrantRecord; isCurrent: boolean } | undefined;

/** Grants and their rotating refresh tokens, kept in `<dir>/grants.json` when a directory is given. */
export class GrantStore {
  private readonly grants = new Map<string, GrantRecord>();
  /** Refresh token hash → grant id, for current and superseded tokens alike. */
  private readonly byRefreshHash = new Map<string, string>();
  private readonly file: JsonStoreFile<z.infer<typeof grantsFile>>;

  private constructor(path: string | undefined) {
    this.file = new JsonStoreFile(path, () => ({ version: 1 as const, grants: [...this.grants.values()] }));
  }

  /** Opens the store with the grants an earlier run kept in `dir`. */
  static async open(dir: string | undefined): Promise<GrantStore> {
    const store = new GrantStore(dir === undefined ? undefined : join(dir, 'grants.json'));
    for (const grant of (await store.file.read(grantsFile))?.grants ?? []) store.index(grant);
    return store;
  }

  /** A grant by id. */
  get(id: string): GrantRecord | undefined {
    return this.grants.get(id);
  }

  /** A person's grants, newest first. */
  grantsOf(personId: string): GrantRecord[] {
    return [...this.grants.values()]
      .filter((grant) => grant.personId === personId)
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Starts a grant and returns its first refresh token. */
  async create(
    fields: Pick<GrantRecord, 'personId' | 'clientId' | 'scopes' | 'resource' | 'defaultAccountId'>,
    now: number,
  ): Promise<{ grant: GrantRecord; refreshToken: string }> {
    const refreshToken = newRefreshToken();
    const grant: GrantRecord = {
      ...fields,
      id: randomBytes(16).toString('base64url'),
      createdAt: now,
      refresh: { currentHash: hashToken(refreshToken), expiresAt: now + refreshLifetimeMs, superseded: [] },
    };
    this.index(grant);
    await this.file.save();
    return { grant, refreshToken };
  }

  /** The grant a refresh token belongs to, and whether it is the current one. */
  lookupRefresh(refreshToken: string): RefreshLookup {
    const hash = hashToken(refreshToken);
    const grant = this.grants.get(this.byRefreshHash.get(hash) ?? '');
    return grant ? { grant, isCurrent: grant.refresh.currentHash === hash } : undefined;
  }

  /**
   * Replaces the current refresh token with a new one, good for 90 days from `now`. Synchronous up
   * to the swap, so two refreshes with one token cannot both succeed.
   */
  async rotate(grant: GrantRecord, now: number): Promise<string> {
    const refreshToken = newRefreshToken();
    const kept = grant.refresh.superseded.filter((entry) => entry.at > now - refreshLifetimeMs);
    for (const dropped of grant.refresh.superseded.filter((entry) => !kept.includes(entry)))
      this.byRefreshHash.delete(dropped.hash);
    grant.refresh = {
      currentHash: hashToken(refreshToken),
      expiresAt: now + refreshLifetimeMs,
      superseded: [...kept, { hash: grant.refresh.currentHash, at: now }],
    };
    grant.lastRefreshedAt = now;
    this.byRefreshHash.set(grant.refresh.currentHash, grant.id);
    await this.file.save();
    return refreshToken;
  }

  /** Ends a grant: its refresh tokens stop working and its access tokens get 401 from then on. */
  async revoke(grant: GrantRecord, because: string, now: number): Promise<void> {
    if (grant.revokedAt !== undefined) return;
    grant.revokedAt = now;
    grant.revokedBecause = because;
    await this.file.save();
  }

  private index(grant: GrantRecord): void {
    this.grants.set(grant.id, grant);
    this.byRefreshHash.set(grant.refresh.currentHash, grant.id);
    for (const entry of grant.refresh.superseded) this.byRefreshHash.set(entry.hash, grant.id);
  }
}

function newRefreshToken(): string {
  return `${refreshTokenPrefix}${randomBytes(32).toString('base64url')}`;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
