/**
 * A header section a hostile sender can put through SMTP just under the sandbox's 256 KiB cap:
 * shared by the integration test that checks the listing stays bounded and the benchmark that
 * measures what it costs.
 */

/** Folds `text` into lines of 76 characters at its spaces, so no line breaks SMTP's limits. */
function folded(name: string, text: string): string {
  const words = text.split(' ');
  const lines: string[] = [];
  let line = `${name}:`;
  for (const word of words) {
    if (line.length + 1 + word.length > 76) {
      lines.push(line);
      line = '';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines.join('\r\n');
}

/** A header section of about 250 KB (under the sandbox's 262,144): a huge display name, subject and address lists, and many fields of other hops. */
export function hostileHeaders(): string[] {
  const name = Array.from({ length: 9_000 }, (_, i) => (i % 50 === 49 ? 'ceo@bank.test' : 'Chief')).join(' ');
  const subject = `URGENT ${Array.from({ length: 9_000 }, () => 'wire').join(' ')}`;
  const many = (n: number, domain: string): string => Array.from({ length: n }, (_, i) => `p${i}@${domain}`).join(', ');
  const otherHops = Array.from({ length: 40 }, (_, i) =>
    folded(
      'Authentication-Results',
      `mx${i}.relay.example; ${' '.repeat(1)}dmarc=pass${' x'.repeat(400)} header.from=bank.test`,
    ),
  );
  const fields = [
    folded('From', `"${name}" <ceo@bank.test>`),
    folded('Subject', subject),
    folded('Cc', many(1_500, 'bank.test')),
    folded('Reply-To', many(1_000, 'evil.test')),
    ...otherHops,
  ];
  // White space runs to fill the section up to 250,000 bytes: what backtracking parsers choke on.
  const room = 250_000 - fields.join('\r\n').length;
  const filler = (words: number): string =>
    folded('X-Filler', Array.from({ length: words }, () => `${' '.repeat(30)}=.`).join(' '));
  let words = Math.floor(room / 33);
  while (filler(words).length > room) words -= 10;
  return [...fields, filler(words)];
}

/** A composed message whose From and Subject give way to a hostile header section. */
export function withHostileHeaders(composed: Buffer, headers: string[]): Buffer {
  const rest = composed
    .toString('latin1')
    .replace(/^From: .*\r\n/m, '')
    .replace(/^Subject: .*\r\n/m, '');
  return Buffer.concat([
    Buffer.from(headers.map((line) => `${line}\r\n`).join(''), 'latin1'),
    Buffer.from(rest, 'latin1'),
  ]);
}
