import { z } from 'zod';

// Only zod here: the bin reads this declaration before it loads the sandbox itself.

const wholeNumber = (what: string) =>
  z.coerce
    .number({ error: `${what} takes a whole number` })
    .int(`${what} takes a whole number`)
    .min(0, `${what} takes a whole number`)
    .optional();

const autoApprovePattern = /^[^:,]*[^\s:,][^:,]*:\s*[^\s,]+(\s*,\s*[^\s,]+)*\s*$/;
const autoApproveUsage = '--oauth-auto-approve takes PERSON:INBOX1,INBOX2, e.g. alice:alice-inbox,ops@acme.test';

/**
 * The sandbox's options, declared once for its bin (main.ts builds its flags from this object).
 * The client's `agent-mailbox sandbox` declares the same flags for its help and passes them on to
 * this bin; a client test checks the two declarations agree.
 */
export const sandboxCommandInput = z.object({
  auth_port: wholeNumber('--auth-port').describe('Auth host port (0: any free port).'),
  api_port: wholeNumber('--api-port').describe('JMAP host port (0: any free port).'),
  smtp_port: wholeNumber('--smtp-port').describe('SMTP port for mail from outside (0: any free port).'),
  mcp_port: wholeNumber('--mcp-port').describe(
    'Hosted MCP server port, {mcp_url}/mcp over Streamable HTTP (0: any free port).',
  ),
  difficulty: wholeNumber('--difficulty').describe('Proof-of-work difficulty in leading zero bits.'),
  domain: z.string().optional().describe('Inbox domain of the sandbox.'),
  data_dir: z
    .string()
    .optional()
    .describe(
      "Keep inboxes, mail and keys in this directory across restarts; the client's credentials/ and client.env go there too.",
    ),
  backend: z
    .enum(['embedded', 'cyrus'], { error: '--backend is embedded or cyrus' })
    .optional()
    .describe('Mail store: embedded (default) or cyrus (a private Cyrus IMAP instance).'),
  session_ttl: wholeNumber('--session-ttl').describe('Session JWT lifetime in seconds (default 3600).'),
  capability_ttl: wholeNumber('--capability-ttl').describe('Capability JWT lifetime in seconds (default 120).'),
  allow_host: z
    .string()
    .optional()
    .describe('Comma-separated host names, besides 127.0.0.1 and localhost, the hosts answer to.'),
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
  json: z.boolean().optional().describe('Print one JSON line with the URLs once ready.'),
  dns_file: z
    .string()
    .optional()
    .describe(
      'JSON file of the DNS records SPF, DKIM and DMARC checks see, e.g. {"TXT": {"example.org": ["v=spf1 ip4:127.0.0.1 -all"]}}; unlisted names do not exist.',
    ),
  authserv_id: z
    .string()
    .optional()
    .describe('authserv-id of the Authentication-Results the sandbox adds (default: its domain).'),
});

export type SandboxCommandInput = z.infer<typeof sandboxCommandInput>;

export interface SandboxCommandOptions {
  authPort?: number | undefined;
  apiPort?: number | undefined;
  smtpPort?: number | undefined;
  /** Hosted MCP server port. */
  mcpPort?: number | undefined;
  /** false: the hosted MCP server leaves jmap_request out. */
  hostedJmap?: boolean | undefined;
  difficulty?: number | undefined;
  domain?: string | undefined;
  dataDir?: string | undefined;
  json?: boolean | undefined;
  backend?: 'embedded' | 'cyrus' | undefined;
  /** Session JWT lifetime in seconds. */
  sessionTtl?: number | undefined;
  /** Capability JWT lifetime in seconds. */
  capabilityTtl?: number | undefined;
  /** Comma-separated host names the auth and JMAP hosts answer to besides the loopback names. */
  allowHost?: string | undefined;
  /** People whose OAuth authorizations are approved at once, with the inboxes they own. */
  oauthAutoApprove?: Array<{ person: string; inboxes: string[] }> | undefined;
  /** OAuth access token lifetime in seconds. */
  oauthAccessTtl?: number | undefined;
  /** JSON file of the DNS records sender authentication sees. */
  dnsFile?: string | undefined;
  /** authserv-id of the Authentication-Results the sandbox adds. */
  authservId?: string | undefined;
}

/** The validated input as the command's options. */
export function sandboxOptionsOf(input: SandboxCommandInput): SandboxCommandOptions {
  return {
    authPort: input.auth_port,
    apiPort: input.api_port,
    smtpPort: input.smtp_port,
    mcpPort: input.mcp_port,
    hostedJmap: input.hosted_jmap === undefined ? undefined : input.hosted_jmap === 'on',
    difficulty: input.difficulty,
    domain: input.domain,
    dataDir: input.data_dir,
    backend: input.backend,
    sessionTtl: input.session_ttl,
    capabilityTtl: input.capability_ttl,
    allowHost: input.allow_host,
    oauthAutoApprove: input.oauth_auto_approve?.map((spec) => {
      const colon = spec.indexOf(':');
      return {
        person: spec.slice(0, colon).trim(),
        inboxes: spec
          .slice(colon + 1)
          .split(',')
          .map((inbox) => inbox.trim()),
      };
    }),
    oauthAccessTtl: input.oauth_access_ttl,
    json: input.json ?? false,
    dnsFile: input.dns_file,
    authservId: input.authserv_id,
  };
}
