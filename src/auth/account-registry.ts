import type { Config } from '../config.js';
import type { AccountState, StoredCredentials } from '../credentials/stored-credentials.js';
import type { Deadline } from '../gate/deadline.js';
import type { PowProgress } from '../pow/pow-progress.js';

/**
 * Contract of the account layer used by the operations, the JMAP client and the watch job.
 * Implemented in src/auth/ (see createAccountRegistry).
 */

export type WatchMode = 'scheduled' | 'on-demand';

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
  /** signup: a new inbox; login: an apiKey given by the operator; existing: idempotent replay. */
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
  /** The call's deadline: token renewal on the auth host counts against it, solving and lock waits do not. */
  deadline?: Deadline;
}

export interface Account {
  readonly dir: string;
  /** Config resolved with this directory's credentials.json as a layer. */
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
}

export interface AccountRegistry {
  /** The account of a credentials directory (the configured default when omitted); cached. */
  open(credentialsDir?: string): Account;
  /** Stops background work (refresh-ahead timers). */
  close(): void;
}

export type { PowProgress };
