/**
 * Why some bytes are not an RFC 5322 message, or undefined when they are one. Email/import answers
 * invalidEmail and Email/parse notParsable for such blobs (RFC 8621 §4.8, §4.9); postal-mime
 * would turn anything into a message with an empty body, so the header section is checked here.
 */
export function messageProblem(raw: Buffer): string | undefined {
  if (raw.length === 0) return 'the blob is empty';
  if (raw.includes(0)) return 'the blob contains NUL bytes, which RFC 5322 does not allow';
  const text = raw.subarray(0, Math.min(raw.length, 1024 * 1024)).toString('latin1');
  const end = /\r?\n\r?\n/.exec(text);
  const lines = text.slice(0, end ? end.index : text.length).split(/\r?\n/);
  let fields = 0;
  for (const [index, line] of lines.entries()) {
    if (/^[ \t]/.test(line)) {
      if (index === 0) return 'the message starts with a continuation line';
      continue;
    }
    // RFC 5322 §2.2: a field name is printable US-ASCII except colon, followed by a colon.
    if (!/^[\x21-\x39\x3b-\x7e]+[ \t]*:/.test(line))
      return `header line ${index + 1} is not "Name: value" (RFC 5322 §2.2)`;
    fields += 1;
  }
  return fields === 0 ? 'the blob has no header fields' : undefined;
}
