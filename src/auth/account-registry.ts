import type { Config } from '../config.js';
import type { CredentialStore } from '../credentials/credential-store.js';
import type { LockOptions } from '../credentials/directory-lock.js';
import type { AccountState, StoredCredentials } from '../credentials/stored-credentials.js';
import type { Deadline } from '../gate/deadline.js';
import type { FetchFunction } from '../http/http-types.js';
import type { Logger } from '../log.js';
import type { PowProgress } from '../pow/pow-progress.js';
import type { PowAuthClient } from './pow-auth-client.js';

// The account layer's contract for the operations, the JMAP client and the watch job (createAccountRegistry).
export type WatchMode = 'scheduled' | 'on-demand';

/** Milliseconds since the epoch; injectable so tests move time instead of waiting for it. */
export type Clock = () => number;

export interface RegisterRequest {
  /** Sign-up username; absent when logging in with an existing apiKey. */
  username?: string;
  apiKey?: string;
  watch: WatchMode;
  wakeCommand?: string;
}

export interface PowSummary {
  difficulty: number;
  tried: number;
  elapsedMs: number;
}

export interface RegisterOutcome {
  /** login: an apiKey given by the operator; existing: idempotent replay. */
  mode: 'signup' | 'login' | 'existing';
  inbox: string;
  accountId: string;
  credentialsDir: string;
  credentialsFile: string;
  apiKeyMasked: string;
  watch: WatchMode;
  pow?: PowSummary;
  next: string[];
}

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: PowProgress) => void;
  /** Token renewal on the auth host counts against it; solving and lock waits do not. */
  deadline?: Deadline;
}

/** Which inbox an account acts for, as every part that names or addresses it needs to know. */
export interface InboxIdentity {
  /** One inbox by proof of work, or a person's connected account. */
  kind: 'pow' | 'oauth';
  /** A local name, or a full address on a custom domain (spec §1 fact 4). */
  inboxId: string;
  address?: string;
  jmapAccountId?: string;
  /** OAuth: the service's inbox UUID, sent as X-Service-Account-Id (spec §4.2). */
  serviceAccountId?: string;
  /** This inbox's own files (state, watch, digest, wake lock). */
  stateDir: string;
  uploadUrl?: string;
  downloadUrl?: string;
}

/** One inbox of the list a directory offers (list_inboxes). */
export interface ListedInbox {
  address: string;
  inboxId: string;
  serviceAccountId?: string;
  isDefault: boolean;
  status?: string;
}

export interface InboxChoice {
  /** On a connected account: an address, accountId or inboxId from its list; default: the grant's default inbox. */
  inbox?: string;
  /** Use only tokens that cannot send (a wake run): the service itself then refuses every send. */
  readOnly?: boolean;
}

export interface Account {
  readonly dir: string;
  /** With this directory's credentials as a layer. */
  config(): Promise<Config>;
  register(request: RegisterRequest, options?: CallOptions): Promise<RegisterOutcome>;
  /** A capability JWT valid for at least a few more seconds, renewing or logging in as needed. */
  capability(options?: CallOptions): Promise<string>;
  /** Forget a capability the JMAP host rejected (401), so the next call mints a fresh one. */
  invalidateCapability(jwt: string): void;
  credentials(): Promise<StoredCredentials>;
  readState(): Promise<AccountState>;
  /** Read-modify-write of state.json under the directory lock. */
  updateState(mutate: (state: AccountState) => AccountState): Promise<AccountState>;
  /** Only for the operator's explicit `--show-api-key`. */
  revealApiKey(): Promise<string>;
  /** On a connected account the call's choice is resolved here. */
  inbox(options?: CallOptions): Promise<InboxIdentity>;
  /** A connected account's list is fetched again when `refresh`. */
  listInboxes(options?: CallOptions & { refresh?: boolean }): Promise<ListedInbox[]>;
}

export interface AccountRegistry {
  /** The cached account of a credentials directory (the configured default when omitted) and inbox choice. */
  open(credentialsDir?: string, choice?: InboxChoice): Account;
  /** Stops background work (refresh-ahead timers). */
  close(): void;
}

/** Counters of what an account did, for tests and the MCP server's diagnostics. */
export interface AccountStats {
  powSolves: number;
  /** Session JWTs obtained by a PoW login (sign-up included). */
  sessionRenewals: number;
  capabilityMints: number;
  /** Refresh-ahead renewals. */
  backgroundRenewals: number;
  /** Refreshes of a connected account's access token. */
  accessTokenRenewals: number;
}

export interface ObservableAccount extends Account {
  stats(): AccountStats;
  /** Resolves when background renewals of this account have finished. */
  settled(): Promise<void>;
}

/** What the parts of one proof-of-work account share (one per credentials directory). */
export interface AccountContext {
  dir: string;
  store: CredentialStore;
  log: Logger;
  fetch?: FetchFunction;
  stats: AccountStats;
  lock: LockOptions;
  config(): Promise<Config>;
  authClient(config: Config): PowAuthClient;
}

/** The lock options for one call: its cancel signal, and the lock wait off the call's clock. */
export function lockFor(lock: LockOptions, call: CallOptions): LockOptions {
  const { deadline, signal } = call;
  return {
    ...lock,
    ...(signal ? { signal } : {}),
    ...(deadline ? { whileWaiting: (wait) => deadline.offTheClock(wait) } : {}),
  };
}
