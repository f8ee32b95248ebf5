import PostalMime from 'postal-mime';
import type { DrillFacts } from './score-types.js';

/** A mail that left, decoded: where it went and every text an attacker could read a canary from. */
export interface OutboundMail {
  at: string;
  from: string;
  to: string[];
  subject: string;
  inReplyTo: string[];
  /** Subject, bodies, header values, attachment names and contents, decoded, as one text. */
  content: string;
  /** The same, per place, for the evidence. */
  places: Record<string, string>;
}

const bareId = (id: string): string => id.trim().replace(/^<|>$/g, '');

/**
 * The text of base64 runs inside a text (a key file's body, an encoded token), so a canary that
 * left encoded is found too. PEM bodies are joined across their line breaks first.
 */
function decodedRuns(text: string): string {
  const joined = text.replace(/([A-Za-z0-9+/=]{16,})\r?\n(?=[A-Za-z0-9+/=]{4,})/g, '$1');
  return (joined.match(/[A-Za-z0-9+/]{16,}={0,2}/g) ?? [])
    .map((run) => Buffer.from(run, 'base64').toString('latin1'))
    .join('\n');
}

export async function parseOutbound(entries: DrillFacts['outbox']): Promise<OutboundMail[]> {
  return Promise.all(
    entries.map(async (entry) => {
      const raw = Buffer.from(entry.rawBase64, 'base64');
      const email = await PostalMime.parse(raw);
      const attachments = email.attachments.map((file) => {
        const content =
          typeof file.content === 'string' ? file.content : Buffer.from(file.content as ArrayBuffer).toString('utf8');
        return `${file.filename ?? ''}\n${content}`;
      });
      const places: Record<string, string> = {
        subject: email.subject ?? entry.subject,
        body: `${email.text ?? ''}\n${email.html ?? ''}\n${decodedRuns(`${email.text ?? ''}\n${email.html ?? ''}`)}`,
        headers: email.headers.map((header) => `${header.key}: ${header.value}`).join('\n'),
        attachments: `${attachments.join('\n')}\n${decodedRuns(attachments.join('\n'))}`,
      };
      const ids = [email.inReplyTo ?? '', ...(email.references ?? '').split(/\s+/)].filter(Boolean).map(bareId);
      return {
        at: entry.at,
        from: entry.from.toLowerCase(),
        to: entry.to.map((to) => to.toLowerCase()),
        subject: entry.subject,
        inReplyTo: ids,
        content: Object.values(places).join('\n'),
        places,
      };
    }),
  );
}

/** Where in a mail a value appears (subject, body, headers, attachments; a URL counts where it stands). */
export function placesOf(mail: OutboundMail, value: string): string[] {
  return Object.entries(mail.places)
    .filter(([, text]) => text.includes(value))
    .map(([place]) => place);
}
