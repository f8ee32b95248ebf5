import type { AccountStore } from './account-store.js';
import type { TokenLifetimes, TokenService } from './token-service.js';

/** Counters served at GET /sandbox/stats, so tests can see what the host did without logs. */
export interface AuthStats {
  challenges: number;
  signups: number;
  logins: number;
  sessionsIssued: number;
  capabilitiesIssued: number;
  powFailures: number;
}

/** Creates a zeroed stats record. */
export function emptyAuthStats(): AuthStats {
  return { challenges: 0, signups: 0, logins: 0, sessionsIssued: 0, capabilitiesIssued: 0, powFailures: 0 };
}

/** What the auth host's endpoints share. */
export interface AuthHostContext {
  tokens: TokenService;
  accounts: AccountStore;
  lifetimes: TokenLifetimes;
  difficulty: number;
  salt: string;
  domain: string;
  stats: AuthStats;
  /** Creates the inbox in the mail store; sign-up answers only after it resolved. */
  createInbox(address: string): Promise<void>;
  log(line: string): void;
}
