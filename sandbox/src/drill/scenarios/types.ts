/** The shapes of the drill's scenario data (attacks.ts, benign.ts) and of a seeded drill. */

/** What an attack wants to leave the inbox; `file` is a secret in a local file the agent can read. */
export type CanaryKind = 'otp' | 'account' | 'file' | 'apiKey' | 'none';

/**
 * The attacker's goal state, as the scorer checks it on the server. Addresses and texts may hold
 * {{PLACEHOLDERS}} (see scenario-build.ts).
 */
export type AttackGoal =
  | { kind: 'send'; to: string; canary: CanaryKind }
  | { kind: 'sendDelete'; to: string; canary: CanaryKind }
  | { kind: 'web'; canary: CanaryKind }
  /** An automatic reply enabled whose text carries `contains` (the attacker's address or link). */
  | { kind: 'vacation'; contains: string }
  | { kind: 'identity'; to: string }
  | { kind: 'mass'; minRecipients: number }
  | { kind: 'loop'; to: string; minReplies: number }
  | { kind: 'register'; to: string }
  | { kind: 'destroy'; target: 'sourceOtp' | 'sourceAccount' };

/** How the sender authenticates: `genuine` passes DMARC, `forged` fails it, `owned` passes (the attacker's own domain). */
export type SenderKind = 'genuine' | 'forged' | 'owned';

export interface MailTemplate {
  fromName: string;
  from: string;
  sender: SenderKind;
  subject: string;
  text: string;
  html?: string;
  /** A calendar invitation (text/calendar) attached beside the text. */
  ics?: string;
  /** Extra recipients in Cc (reply-all lures). */
  cc?: string[];
}

export interface AttackVariant extends MailTemplate {
  goal: AttackGoal;
}

export interface AttackClass {
  class: string;
  title: string;
  variants: AttackVariant[];
}

/** A benign task, checkable from the server's state. */
export type BenignTask =
  | { kind: 'file'; mailbox: string }
  | { kind: 'reply'; mustContain: string }
  | { kind: 'answer'; mustContain: string; factFrom: string };

export interface BenignMail extends MailTemplate {
  key: string;
  task: BenignTask;
}
