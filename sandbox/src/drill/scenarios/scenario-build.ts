import { randomBytes, randomInt } from 'node:crypto';
import { attackClasses } from './attacks.js';
import { benignMails, drillFolders, drillPrompt } from './benign.js';
import type { AttackGoal, BenignTask, MailTemplate } from './types.js';

/** One mail of a seeded drill, placeholders filled. */
export interface SeededMail extends MailTemplate {
  key: string;
  kind: 'attack' | 'benign';
  messageId: string;
  class?: string;
  goal?: AttackGoal;
  leaves?: boolean;
  mark?: string;
  task?: BenignTask;
}

export interface Canaries {
  otp: string;
  account: string;
  file: string;
}

/** What the sandbox keeps of a drill, and what the scorer reads back. */
export interface DrillRecord {
  version: 1;
  drillId: string;
  inbox: string;
  seededAt: string;
  seed: number;
  prompt: string;
  classes: string[];
  folders: string[];
  canaries: Canaries;
  files: { file: string; sshKey: string };
  webBase: string;
  mails: SeededMail[];
}

export const allClasses = attackClasses.map((entry) => entry.class);

/** Whether an attack's goal makes something leave the inbox's control. */
export function goalLeaves(goal: AttackGoal): boolean {
  return goal.kind !== 'destroy';
}

/** A small seeded generator (mulberry32): the order of the mail follows --seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const tagCharacters = (text: string): string =>
  [...text].map((ch) => String.fromCodePoint(0xe0000 + (ch.codePointAt(0) ?? 0))).join('');

export interface BuildOptions {
  inbox: string;
  classes: string[];
  seed: number;
  webBase: string;
  /** Where this drill's local secret files go, by drill id. */
  filesFor: (drillId: string) => { file: string; sshKey: string };
  now: Date;
}

/** Fills the scenario's placeholders with this run's canaries and tokens; unique per run whatever the seed. */
export function buildScenario(options: BuildOptions): DrillRecord {
  const drillId = `d-${randomBytes(4).toString('hex')}`;
  const canaries: Canaries = {
    otp: String(randomInt(100_000, 1_000_000)),
    account: `NW${randomInt(10, 100)}-${randomInt(1000, 10000)}-${randomInt(1000, 10000)}-${randomInt(10, 100)}`,
    file: `dtk_${randomBytes(12).toString('hex')}`,
  };
  const tokens = new Map<string, string>();
  const webBase = `${options.webBase}/${drillId}`;
  const files = options.filesFor(drillId);
  const fill = (text: string, mark = ''): string =>
    text
      .replace(/\{\{T:([a-z0-9]+)\}\}/g, (_, name: string) => {
        if (!tokens.has(name)) tokens.set(name, String(randomInt(10_000, 100_000)));
        return tokens.get(name) ?? '';
      })
      .replace(/\{\{TAGS:([^}]*)\}\}/g, (_, hidden: string) => tagCharacters(hidden))
      .replaceAll('{{FILE_REV}}', [...files.file].reverse().join(''))
      .replaceAll('{{OTP}}', canaries.otp)
      .replaceAll('{{ACCOUNT}}', canaries.account)
      .replaceAll('{{FILE}}', files.file)
      .replaceAll('{{SSH_KEY}}', files.sshKey)
      .replaceAll('{{WEB}}', webBase)
      .replaceAll('{{INBOX}}', options.inbox)
      .replaceAll('{{MARK}}', mark);
  const messageId = (domain: string): string => `<${randomBytes(9).toString('hex')}@${domain}>`;
  const filled = <T extends MailTemplate>(mail: T, mark?: string): T => ({
    ...mail,
    subject: fill(mail.subject, mark),
    text: fill(mail.text, mark),
    ...(mail.html === undefined ? {} : { html: fill(mail.html, mark) }),
    ...(mail.ics === undefined ? {} : { ics: fill(mail.ics, mark) }),
  });

  const wanted = new Set(options.classes);
  const attacks: SeededMail[] = attackClasses
    .filter((entry) => wanted.has(entry.class))
    .flatMap((entry) =>
      entry.variants.map((variant, index) => {
        const mark = `M${randomBytes(4).toString('hex').toUpperCase()}`;
        return {
          ...filled(variant, mark),
          key: `${entry.class}#${index + 1}`,
          kind: 'attack' as const,
          class: entry.class,
          goal:
            variant.goal.kind === 'vacation'
              ? { ...variant.goal, contains: fill(variant.goal.contains, mark) }
              : variant.goal,
          leaves: goalLeaves(variant.goal),
          mark,
          messageId: messageId(variant.from.split('@')[1] ?? 'invalid'),
        };
      }),
    );
  const benign: SeededMail[] = benignMails.map((mail) => {
    const task: BenignTask =
      mail.task.kind === 'file' ? mail.task : { ...mail.task, mustContain: fill(mail.task.mustContain) };
    return {
      ...filled(mail),
      kind: 'benign' as const,
      task,
      messageId: messageId(mail.from.split('@')[1] ?? 'invalid'),
    };
  });

  // Canary sources first, as in life the code arrives before the attack that asks for it; the rest shuffled.
  const random = seededRandom(options.seed);
  const [first, rest] = [
    benign.filter((mail) => mail.key === 'bank-otp' || mail.key === 'account'),
    [...benign.filter((mail) => mail.key !== 'bank-otp' && mail.key !== 'account'), ...attacks],
  ];
  for (let i = rest.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rest[i], rest[j]] = [rest[j] as SeededMail, rest[i] as SeededMail];
  }
  return {
    version: 1,
    drillId,
    inbox: options.inbox,
    seededAt: options.now.toISOString(),
    seed: options.seed,
    prompt: drillPrompt(options.inbox),
    classes: allClasses.filter((name) => wanted.has(name)),
    folders: [...drillFolders],
    canaries,
    files,
    webBase,
    mails: [...first, ...rest],
  };
}
