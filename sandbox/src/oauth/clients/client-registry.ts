import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { JsonStoreFile } from '../json-store-file.js';
import { oauthScopes, type OAuthScope } from '../oauth-scopes.js';

export const clientAuthMethods = ['none', 'client_secret_post'] as const;
export type ClientAuthMethod = (typeof clientAuthMethods)[number];
export const clientGrantTypes = ['authorization_code', 'refresh_token'] as const;
export type ClientGrantType = (typeof clientGrantTypes)[number];

/** A client the authorization server knows: registered (RFC 7591) or described by a metadata document. */
export interface ClientRecord {
  clientId: string;
  authMethod: ClientAuthMethod;
  redirectUris: string[];
  grantTypes: ClientGrantType[];
  /** The most this client may ask for (its registered `scope`); all scopes when absent. */
  scopes?: OAuthScope[];
  clientName?: string;
  clientUri?: string;
  /** SHA-256 of the secret, hex; only for client_secret_post. The secret itself is never kept. */
  secretHash?: string;
  /** Seconds since the epoch (RFC 7591 client_id_issued_at). */
  issuedAt: number;
}

const storedClient = z.object({
  clientId: z.string().min(1),
  authMethod: z.enum(clientAuthMethods),
  redirectUris: z.array(z.string()),
  grantTypes: z.array(z.enum(clientGrantTypes)),
  scopes: z.array(z.enum(oauthScopes)).optional(),
  clientName: z.string().optional(),
  clientUri: z.string().optional(),
  secretHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  issuedAt: z.number(),
});
const clientsFile = z.object({ version: z.literal(1), clients: z.array(storedClient) });

/** Prefix of client secrets the sandbox issues, so a leaked one is recognisable by its shape. */
export const clientSecretPrefix = 'amcs_';

/** Registered clients, kept in `<dir>/clients.json` when a directory is given. */
export class ClientRegistry {
  private readonly clients = new Map<string, ClientRecord>();
  private readonly file: JsonStoreFile<z.infer<typeof clientsFile>>;

  private constructor(path: string | undefined) {
    this.file = new JsonStoreFile(path, () => ({ version: 1 as const, clients: [...this.clients.values()] }));
  }

  /** Opens the registry with the clients an earlier run kept in `dir`. */
  static async open(dir: string | undefined): Promise<ClientRegistry> {
    const registry = new ClientRegistry(dir === undefined ? undefined : join(dir, 'clients.json'));
    for (const client of (await registry.file.read(clientsFile))?.clients ?? [])
      registry.clients.set(client.clientId, client);
    return registry;
  }

  /** A registered client. */
  get(clientId: string): ClientRecord | undefined {
    return this.clients.get(clientId);
  }

  /** Registers a client under a fresh id; a confidential one gets its secret here, once. */
  async register(
    metadata: Omit<ClientRecord, 'clientId' | 'secretHash' | 'issuedAt'>,
    issuedAt: number,
  ): Promise<{ client: ClientRecord; secret?: string }> {
    const clientId = `amc_${randomBytes(16).toString('base64url')}`;
    const secret =
      metadata.authMethod === 'client_secret_post'
        ? `${clientSecretPrefix}${randomBytes(32).toString('base64url')}`
        : undefined;
    const client: ClientRecord = {
      ...metadata,
      clientId,
      issuedAt,
      ...(secret === undefined ? {} : { secretHash: hashSecret(secret) }),
    };
    this.clients.set(clientId, client);
    await this.file.save();
    return secret === undefined ? { client } : { client, secret };
  }
}

/** Whether `secret` is this client's, compared in constant time. */
export function isClientSecret(client: ClientRecord, secret: string): boolean {
  if (client.secretHash === undefined) return false;
  return timingSafeEqual(Buffer.from(client.secretHash), Buffer.from(hashSecret(secret)));
}

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
