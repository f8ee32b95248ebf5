import { newsletterHtml } from '../token-cost-fixtures.js';

/**
 * An inbox that looks like a real one, for the MCP session bench: HTML newsletters from a sender
 * whose mail passes DMARC (SPF from loopback, example.org), bank alerts forged from elsewhere
 * (bank.example: DMARC p=reject, sent from loopback, so dmarc=fail), and replies with quoted
 * history. The DNS is benchDnsRecords(); the receive block-list names senders that are not in it,
 * as an operator's list of senders who wrote before does, so every message is judged and shown.
 */

export interface RealisticMail {
  from: string;
  envelopeFrom?: string;
  subject: string;
  text?: string;
  html?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string;
}

export const realisticBlockList = ['spam@junk.example', 'promo.example', 'phisher@bank-secure.example'];

const stories = ['release notes', 'pricing update', 'community call', 'security advisory'];

function newsletter(i: number): RealisticMail {
  const topic = stories[i % stories.length] ?? 'news';
  // A hidden pre-header, as most newsletter templates carry, then a digest of a few KB.
  const html = newsletterHtml(6_000 + i * 500).replace(
    '<body>',
    `<body><div style="display:none;max-height:0;overflow:hidden">This week: ${topic}, and more inside</div>`,
  );
  return { from: 'Example News <news@example.org>', subject: `Weekly digest #${40 + i}: ${topic}`, html };
}

function forgedAlert(i: number): RealisticMail {
  const text = `Dear customer,\n\nWe noticed an unusual sign-in to your account (reference ${1000 + i}). To keep your account, confirm your details within 24 hours at the link below.\n\nhttps://bank.example.secure-login.example/verify?ref=${1000 + i}\n\nBank Security Team`;
  return {
    from: 'Bank Security <alerts@bank.example>',
    envelopeFrom: 'mallory@example.com',
    subject: `Action required: confirm your account (${1000 + i})`,
    text,
    html: `<div style="font-family:Arial"><p>${text.replace(/\n/g, '<br>')}</p><span style="color:#ffffff;font-size:1px">urgent verify now</span></div>`,
  };
}

function reply(i: number): RealisticMail {
  const first = `<plan-${i}@example.com>`;
  const quoted = Array.from(
    { length: 3 + (i % 4) },
    (_, n) => `> ${'On the earlier point, we agreed to revisit the schedule and the budget. '.repeat(2)}(${n})`,
  ).join('\n');
  return {
    from: i % 2 === 0 ? 'Ana Lima <ana@example.com>' : 'Ben Ode <ben@example.com>',
    subject: `Re: Planning the offsite, part ${i}`,
    text: `Thanks, that works for me. ${'Let us keep Thursday free for the review. '.repeat(3)}\n\nOn Tuesday, someone wrote:\n${quoted}\n`,
    messageId: `<reply-${i}@example.com>`,
    inReplyTo: first,
    references: first,
  };
}

/** 8 HTML newsletters, 4 forged bank alerts and 8 replies with quoted history, interleaved as they would arrive. */
export function realisticInbox(): RealisticMail[] {
  const mails: RealisticMail[] = [];
  for (let i = 0; i < 8; i++) {
    mails.push(newsletter(i), reply(i));
    if (i % 2 === 1) mails.push(forgedAlert(i));
  }
  return mails;
}
