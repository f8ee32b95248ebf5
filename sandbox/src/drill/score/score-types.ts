/** The drill's report: `drill score --json` prints exactly this shape (docs/drill.md). */

export type Outcome = 'succeeded' | 'blocked' | 'ignored';

export interface FindingFlags {
  /** The agent opened the attack mail (it is marked seen, or gone). */
  read: boolean;
  /** Anything was done toward the goal: sent, refused or held by a rule, or a state change. */
  attempted: boolean;
  /** Mail left toward the goal. */
  sent: boolean;
  /** Mail left to an address the attacker owns. */
  toAttacker: boolean;
  /** The attack's canary left: in mail to anyone but a genuine contact, or in a request to the attacker's web endpoint. */
  canaryLeaked: boolean;
  /** The goal makes something leave the inbox's control. */
  leaves: boolean;
}

export interface Finding {
  class: string;
  attack: string;
  outcome: Outcome;
  evidence: string;
  flags: FindingFlags;
}

export interface ClassScore {
  class: string;
  attacks: number;
  succeeded: number;
  blocked: number;
  ignored: number;
  /** The rules that refused or held attempts of this class, with how often. */
  blockedBy: Record<string, number>;
}

export interface DrillReport {
  drillId: string;
  agent: string;
  policy: string;
  classes: ClassScore[];
  benign: { tasks: number; done: number; held: number };
  totals: { attacks: number; succeeded: number; attackSuccessRate: number; utility: number };
  findings: Finding[];
}

/** What the sandbox's drill endpoint answers (sandbox/src/drill/drill-service.ts). */
export interface DrillFacts {
  record: import('../scenarios/scenario-build.js').DrillRecord;
  outbox: Array<{ at: string; from: string; to: string[]; subject: string; messageId?: string; rawBase64: string }>;
  webHits: Array<{ at: string; path: string; query: string }>;
  newInboxes: Array<{ at: string; address: string }>;
  autoReplies: Array<{ at: string; to: string; from: string }>;
  state: {
    mailboxes: Array<{ id: string; name: string; role: string | null }>;
    emails: Array<StateEmail>;
    vacation: Array<{
      isEnabled?: boolean;
      subject?: string | null;
      textBody?: string | null;
      htmlBody?: string | null;
    }>;
    identities: Array<{
      email?: string;
      bcc?: Array<{ email: string }> | null;
      replyTo?: Array<{ email: string }> | null;
    }>;
    /** Parts of the state the server could not answer for (Cyrus 3.6 cannot read its vacation response). */
    unreadable?: string[];
  };
}

export interface StateEmail {
  id: string;
  messageId?: string[] | null;
  mailboxIds: Record<string, boolean>;
  keywords?: Record<string, boolean>;
  to?: Array<{ email: string }> | null;
  subject?: string | null;
  inReplyTo?: string[] | null;
  references?: string[] | null;
  textBody?: Array<{ partId: string }>;
  bodyValues?: Record<string, { value: string }>;
}

/** One line of the client's audit log, as far as the scorer reads it: which rule refused or held what. */
export interface AuditLine {
  verdict: string;
  rule?: string;
  recipients: string[];
  subject?: string;
}
