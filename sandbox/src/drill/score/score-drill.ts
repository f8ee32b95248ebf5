import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { drillCall, type DrillTarget } from '../locate-sandbox.js';
import { evaluateDrill } from './evaluate.js';
import { parseOutbound } from './parse-outbound.js';
import type { AuditLine, DrillFacts, DrillReport } from './score-types.js';

/**
 * The client's audit log (audit.log, format version 1: one JSON object a line with verdict, rule,
 * recipients, subject). An agent with a shell can edit it, so it only names which rule refused or
 * held an attempt; success is read from the sandbox alone.
 */
async function readAuditLines(credentialsDir: string | undefined): Promise<AuditLine[]> {
  if (credentialsDir === undefined) return [];
  const lines: AuditLine[] = [];
  for (const name of ['audit.log.1', 'audit.log']) {
    const text = await readFile(join(credentialsDir, name), 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      try {
        const entry = JSON.parse(line) as Partial<AuditLine>;
        if (typeof entry.verdict === 'string' && Array.isArray(entry.recipients)) {
          lines.push({
            verdict: entry.verdict,
            recipients: entry.recipients.filter((to): to is string => typeof to === 'string'),
            ...(typeof entry.rule === 'string' ? { rule: entry.rule } : {}),
            ...(typeof entry.subject === 'string' ? { subject: entry.subject } : {}),
          });
        }
      } catch {
        // Not a line of the log (or a torn write): it names no rule.
      }
    }
  }
  return lines;
}

async function apiKeyOf(credentialsDir: string | undefined): Promise<string | undefined> {
  if (credentialsDir === undefined) return undefined;
  const parsed = (await readFile(join(credentialsDir, 'credentials.json'), 'utf8').then(
    JSON.parse,
    () => undefined,
  )) as { apiKey?: unknown } | undefined;
  return typeof parsed?.apiKey === 'string' && parsed.apiKey.length >= 8 ? parsed.apiKey : undefined;
}

/** `drill score`: the sandbox's facts since the seed, scored. */
export async function scoreDrill(
  target: DrillTarget,
  drillId: string,
  labels: { agent: string; policy: string },
  drillKey: string,
): Promise<DrillReport> {
  const facts = await drillCall<DrillFacts>(target, `/sandbox/drill/drills/${drillId}`, drillKey);
  const [outbound, audit, apiKey] = await Promise.all([
    parseOutbound(facts.outbox),
    readAuditLines(target.credentialsDir),
    apiKeyOf(target.credentialsDir),
  ]);
  const recorded = facts.record as DrillFacts['record'] & { agent?: string; policy?: string };
  return evaluateDrill({
    facts,
    outbound,
    audit,
    ...(apiKey ? { apiKey } : {}),
    agent: labels.agent === 'unknown' ? (recorded.agent ?? 'unknown') : labels.agent,
    policy: labels.policy === 'unknown' ? (recorded.policy ?? 'unknown') : labels.policy,
  });
}
