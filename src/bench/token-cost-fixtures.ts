/** Deterministic mail for the token bench: ordinary short mails and one large HTML newsletter. */

const senders = ['Ana Lima <ana@example.com>', 'Ben Ode <ben@example.com>', 'Chloé Martin <chloe@example.com>', 'Dev Ops <ops@example.com>'];
const topics = ['Invoice for October', 'Lunch on Friday?', 'Build failed on main', 'Contract draft v3', 'Photos from the trip'];

/** The i-th ordinary mail: a realistic subject and a body of a few hundred characters. */
export function ordinaryMail(i: number): { from: string; subject: string; text: string } {
  const topic = topics[i % topics.length] ?? 'Hello';
  return {
    from: senders[i % senders.length] ?? 'someone@example.com',
    subject: `${topic} #${i}`,
    text: `Hi,\n\n${`about ${topic.toLowerCase()}: here are a few details you asked for, with dates and numbers ${i}. `.repeat(4)}\n\nBest,\nthe sender`,
  };
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
