import { emptyDnsRecords, mergeDnsRecords, type DnsRecords } from '../sandbox/src/mail-auth/dns-records.js';

/**
 * Deterministic mail for the token bench: ordinary short mails (most from a domain whose mail
 * passes DMARC, some forged, some with a display name that claims another sender, some HTML with
 * a hidden pre-header), one large HTML newsletter, and the DNS that makes those verdicts so.
 */

const senders = [
  'Ana Lima <ana@example.com>',
  'Ben Ode <ben@example.com>',
  'Chloé Martin <chloe@example.com>',
  'Dev Ops <ops@example.com>',
];
const topics = [
  'Invoice for October',
  'Lunch on Friday?',
  'Build failed on main',
  'Contract draft v3',
  'Photos from the trip',
];

/** The domains the bench's senders write from: SPF lets loopback send for them; bank.example's mail fails DMARC from anywhere else. */
export function benchDnsRecords(): DnsRecords {
  const zone = emptyDnsRecords();
  const allowLoopback = ['v=spf1 ip4:127.0.0.1 -all'];
  const problem = mergeDnsRecords(zone, {
    TXT: {
      'example.com': [allowLoopback],
      '_dmarc.example.com': [['v=DMARC1; p=none']],
      'example.org': [allowLoopback],
      '_dmarc.example.org': [['v=DMARC1; p=none']],
      'example.net': [allowLoopback],
      '_dmarc.example.net': [['v=DMARC1; p=none']],
      'bank.example': [['v=spf1 ip4:192.0.2.10 -all']],
      '_dmarc.bank.example': [['v=DMARC1; p=reject']],
    },
  });
  if (problem) throw new Error(problem);
  return zone;
}

export interface BenchMail {
  from: string;
  /** MAIL FROM, when it is not the From address. */
  envelopeFrom?: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * The i-th ordinary mail: a realistic subject and a body of a few hundred characters. Every tenth
 * is forged (From a bank, sent from elsewhere: dmarc=fail), every tenth a fifth later has a display
 * name that holds another address, and every seventh is HTML with a hidden pre-header.
 */
export function ordinaryMail(i: number): BenchMail {
  const topic = topics[i % topics.length] ?? 'Hello';
  const text = `Hi,\n\n${`about ${topic.toLowerCase()}: here are a few details you asked for, with dates and numbers ${i}. `.repeat(4)}\n\nBest,\nthe sender`;
  const from =
    i % 10 === 9
      ? 'CEO <ceo@bank.example>'
      : i % 10 === 4
        ? '"support@bank.example" <help@example.com>'
        : (senders[i % senders.length] ?? 'someone@example.com');
  const mail: BenchMail = {
    from,
    subject: `${topic} #${i}`,
    text,
    ...(i % 10 === 9 ? { envelopeFrom: 'mallory@example.com' } : {}),
  };
  if (i % 7 === 3) {
    mail.html = `<div style="display:none;max-height:0;overflow:hidden">Don't miss this week's offers, open now</div><p>${text.replace(/\n/g, '<br>')}</p>`;
  }
  return mail;
}

/** An HTML-only newsletter of about `bytes` characters, with the style, script and tables such mail carries. */
export function newsletterHtml(bytes: number): string {
  const head = `<!doctype html><html><head><meta charset="utf-8"><title>Weekly digest</title><style>${'.c{color:#333;font-family:Arial,sans-serif;padding:0 8px}'.repeat(40)}</style><script>var tracking = "${'x'.repeat(800)}";</script></head><body><table width="100%" cellpadding="0" cellspacing="0">`;
  const rows: string[] = [];
  let i = 0;
  while (head.length + rows.join('').length < bytes - 200) {
    rows.push(
      `<tr><td class="c" style="padding:12px;border-bottom:1px solid #eee"><h2 style="font-size:18px;margin:0">Story ${i}: what changed this week</h2>` +
        `<p style="margin:4px 0">A short paragraph about story ${i}, the people involved and why it matters to readers of this digest.</p>` +
        `<a href="https://news.example.org/track?story=${i}&amp;utm_source=newsletter&amp;utm_medium=email" style="color:#06c">Read more</a>` +
        `<img src="https://news.example.org/pixel/${i}.gif" width="1" height="1" alt=""></td></tr>`,
    );
    i++;
  }
  return `${head}${rows.join('')}</table><p style="font-size:11px">You receive this because you subscribed. <a href="https://news.example.org/unsubscribe">Unsubscribe</a></p></body></html>`;
}
