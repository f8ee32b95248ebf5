import * as z from 'zod';
import { optionalSwitch, optionalText } from '../optional-inputs.js';

// The flags of `agent-mailbox sandbox`, for the client's CLI and help; the sandbox package declares them for
// its own bin, and test/unit/sandbox-bin/sandbox-flags.test.ts checks the two agree.

export const wholeNumber = (what: string) =>
  z.coerce
    .number({ error: `${what} takes a whole number` })
    .int(`${what} takes a whole number`)
    .min(0, `${what} takes a whole number`)
    .optional();

const autoApprovePattern = /^[^:,]*[^\s:,][^:,]*:\s*[^\s,]+(\s*,\s*[^\s,]+)*\s*$/;
const autoApproveUsage = '--oauth-auto-approve takes PERSON:INBOX1,INBOX2, e.g. alice:alice-inbox,ops@acme.test';

/** `agent-mailbox sandbox`'s input, passed on to the sandbox's bin as flags; built when asked for, not at every start. */
export const sandboxCommandInput = () =>
  z.object({
    auth_port: wholeNumber('--auth-port').describe('Auth host port (0: any free port).'),
    api_port: wholeNumber('--api-port').describe('JMAP host port (0: any free port).'),
    smtp_port: wholeNumber('--smtp-port').describe('SMTP port for mail from outside (0: any free port).'),
    mcp_port: wholeNumber('--mcp-port').describe(
      'Hosted MCP server port, {mcp_url}/mcp over Streamable HTTP (0: any free port).',
    ),
    difficulty: wholeNumber('--difficulty').describe('Proof-of-work difficulty in leading zero bits.'),
    domain: optionalText('Inbox domain of the sandbox.'),
    data_dir: optionalText(
      "Keep inboxes, mail and keys in this directory across restarts; the client's credentials/ and client.env go there too.",
    ),
    backend: z
      .enum(['embedded', 'cyrus'], { error: '--backend is embedded or cyrus' })
      .optional()
      .describe('Mail store: embedded (default) or cyrus (a private Cyrus IMAP instance).'),
    session_ttl: wholeNumber('--session-ttl').describe('Session JWT lifetime in seconds (default 3600).'),
    capability_ttl: wholeNumber('--capability-ttl').describe('Capability JWT lifetime in seconds (default 120).'),
    allow_host: optionalText('Comma-separated host names, besides 127.0.0.1 and localhost, the hosts answer to.'),
    oauth_auto_approve: z
      .array(z.string().regex(autoApprovePattern, autoApproveUsage))
      .optional()
      .describe(
        'PERSON:INBOX1,INBOX2 — OAuth authorization approves at once for this person, who owns these inboxes (created if new; a full address puts one on a custom domain; the first is the default).',
      ),
    oauth_access_ttl: z.coerce
      .number({ error: '--oauth-access-ttl takes a whole number of seconds' })
      .int('--oauth-access-ttl takes a whole number of seconds')
      .min(1, '--oauth-access-ttl takes a whole number of seconds, at least 1')
      .optional()
      .describe('OAuth access token lifetime in seconds (default 900).'),
    hosted_jmap: z
      .enum(['on', 'off'], { error: '--hosted-jmap is on or off' })
      .optional()
      .describe('Whether the hosted MCP server offers jmap_request (default on; run_preset stays either way).'),
    json: optionalSwitch('Print one JSON line with the URLs once ready.'),
    dns_file: optionalText(
      'JSON file of the DNS records SPF, DKIM and DMARC checks see, e.g. {"TXT": {"example.org": ["v=spf1 ip4:127.0.0.1 -all"]}}; unlisted names do not exist.',
    ),
    authserv_id: optionalText('authserv-id of the Authentication-Results the sandbox adds (default: its domain).'),
  });

/** Validated input as the bin's flags (`auth_port` → `--auth-port`): true a bare flag, a list one flag per value. */
export function flagsOf(input: Record<string, unknown>): string[] {
  return Object.entries(input).flatMap(([key, value]): string[] => {
    const flag = `--${key.replace(/_/g, '-')}`;
    if (value === undefined || value === false) return [];
    if (value === true) return [flag];
    if (Array.isArray(value)) return value.flatMap((item) => [flag, String(item)]);
    return [flag, String(value)];
  });
}
