import { containsKnownSecret } from '../redact.js';

/**
 * The outbound secret scan: refuses mail that carries this tool's own secrets (local-secrets.ts, and
 * whatever this process holds), tokens by their shape, private-key blocks or common credential
 * formats. It catches mistakes and obvious exfiltration; a determined encoder (base64 inside a zip, a
 * key spelt out in words) passes it. Findings name the kind and where, never the value.
 */

/** One piece of an outgoing mail, named for the refusal ("subject", "attachment invoice.pdf"). */
export type ScanPart = { where: string; text: string };

type SecretFinding = { where: string; kind: string };

/** A long part is read in windows of this size, each overlapping the next, so a credential on a seam is seen whole. */
export const scanBytesPerPart = 8 * 1024 * 1024;
const windowOverlap = 16 * 1024;

// The rule set's names, from its rule ids, as a refusal shows them. Its Google Cloud rule reads only
// .json and .p12 files, never mail text, so it needs no name here.
const kindByRule: Record<string, string> = {
  '@secretlint/secretlint-rule-aws': 'an AWS credential',
  '@secretlint/secretlint-rule-github': 'a GitHub token',
  '@secretlint/secretlint-rule-slack': 'a Slack token',
  '@secretlint/secretlint-rule-npm': 'an npm token',
  '@secretlint/secretlint-rule-privatekey': 'a private key',
  '@secretlint/secretlint-rule-basicauth': 'a password inside a URL',
  '@secretlint/secretlint-rule-openai': 'an OpenAI API key',
  '@secretlint/secretlint-rule-anthropic': 'an Anthropic API key',
  '@secretlint/secretlint-rule-sendgrid': 'a SendGrid API key',
  '@secretlint/secretlint-rule-shopify': 'a Shopify token',
  '@secretlint/secretlint-rule-1password': 'a 1Password token',
};

// Formats the rule set leaves to others (the apiKey, refresh-token and client-secret shapes are the
// redactor's). A private-key block counts even when cut short: half a key is still a leak.
const ownShapes: { kind: string; pattern: RegExp }[] = [
  { kind: 'a private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { kind: 'an Agent Mailbox apiKey', pattern: /\bamk_[A-Za-z0-9_-]{6,}/ },
  { kind: 'an Agent Mailbox refresh token', pattern: /\bamr_[A-Za-z0-9_-]{6,}/ },
  { kind: 'an Agent Mailbox client secret', pattern: /\bamcs_[A-Za-z0-9_-]{6,}/ },
];

// A header segment followed by at least a payload segment (JWS has three, JWE five). Only the header
// is consumed, so every segment of a dotted run is tried as a header: a token behind `wrap.` is still
// found. A candidate starts at the start of a run and is bounded, so a long run without dots is walked
// once, not once per character (an unbounded one of megabytes overflows the regexp engine's stack).
const jwtHeader = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{4,2048}(?=\.[A-Za-z0-9_-]{4,65536}\.)/g;

/** A JWT by structure (RFC 7515 §7.1): a segment decoding to a JSON object naming an `alg` (not only `eyJ…`). */
function containsJwt(text: string): boolean {
  for (const [header] of text.matchAll(jwtHeader)) {
    try {
      // Destructuring null throws; a list, string or number has no `alg`.
      const { alg } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown };
      if (typeof alg === 'string') return true;
    } catch {
      // Not JSON: not a token header.
    }
  }
  return false;
}

type Linter = (part: ScanPart) => Promise<string[]>;
let linter: Promise<Linter> | undefined;

/** secretlint's recommended rules, loaded on the first scan only (~30 ms): most commands never send. */
function loadLinter(): Promise<Linter> {
  linter ??= (async () => {
    const [{ lintSource }, { creator: preset }, { secretLintProfiler }] = await Promise.all([
      import('@secretlint/core'),
      import('@secretlint/secretlint-rule-preset-recommend'),
      import('@secretlint/profiler'),
    ]);
    // secretlint 12 profiles every lint into a list it never empties and scans on each mark: a send
    // cost 20-60 ms after a few hundred, and a long-lived server grew without bound
    // (https://github.com/secretlint/secretlint/issues/1633). The profiler is its own pinned
    // dependency so this is the instance core marks through. Can go with secretlint 13 (Node 22).
    secretLintProfiler.mark = () => undefined;
    return async (part: ScanPart) => {
      const result = await lintSource({
        source: { filePath: '/outgoing-mail.txt', content: part.text, contentType: 'text' },
        options: {
          // Stryker disable next-line StringLiteral: findings are named by each message's own rule id, never by this one
          config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: preset }] },
          // Stryker disable next-line BooleanLiteral: only rule ids are read from the messages; masked is the safer default should that change
          maskSecrets: true,
        },
      });
      return result.messages.map(
        (message) =>
          kindByRule[message.ruleId] ?? `a credential (${message.ruleId.replace('@secretlint/secretlint-rule-', '')})`,
      );
    };
  })();
  return linter;
}

/** Every secret found in the parts of one outgoing mail, each kind once per place. */
export async function scanForSecrets(parts: readonly ScanPart[]): Promise<SecretFinding[]> {
  const findings: SecretFinding[] = [];
  const add = (where: string, kind: string): void => {
    if (!findings.some((f) => f.where === where && f.kind === kind)) findings.push({ where, kind });
  };
  const lint = await loadLinter();
  for (const part of parts) {
    // Stryker disable next-line EqualityOperator: one more round would scan an empty window, finding nothing
    for (let start = 0; start < part.text.length; start += scanBytesPerPart - windowOverlap) {
      // Stryker disable next-line MethodExpression: the whole text in every round finds the same, only slower; the window bounds each lint's cost
      const text = part.text.slice(start, start + scanBytesPerPart);
      if (containsKnownSecret(text)) add(part.where, "this inbox's own apiKey or token");
      for (const { kind, pattern } of ownShapes) if (pattern.test(text)) add(part.where, kind);
      if (containsJwt(text)) add(part.where, 'a JSON Web Token');
      for (const kind of await lint({ where: part.where, text })) add(part.where, kind);
      // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: a round past the last whole window rescans its overlap, which names each kind once anyway
      if (start + scanBytesPerPart >= part.text.length) break;
    }
  }
  return findings;
}
