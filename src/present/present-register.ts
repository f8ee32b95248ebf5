import type { RegisterOutcome } from '../auth/account-registry.js';
import type { Presentation } from '../render/present-result.js';
import type { FrontDoor } from '../render/front-door.js';
import { isRecord } from '../is-record.js';

/** The members of register's result the text shows (the result itself stays exact in structuredContent). */
type RegisterShown = Pick<
  RegisterOutcome,
  'mode' | 'inbox' | 'accountId' | 'credentialsDir' | 'apiKeyMasked' | 'pow'
> & {
  watchJob: { summary: string; installed: boolean; verify: string[]; remove?: string };
  next: string[];
};

const headline: Record<RegisterShown['mode'], (inbox: string) => string> = {
  signup: (inbox) => `Registered a new inbox: ${inbox}.`,
  login: (inbox) => `Logged in to the inbox ${inbox} with the api_key.`,
  existing: (inbox) => `This credentials directory already holds ${inbox}.`,
};

/** register's result as the model reads it, in sentences; the CLI keeps printing the JSON scripts read. */
export function presentRegister(result: unknown, door: FrontDoor): Presentation {
  if (door !== 'mcp' || !isRegisterShown(result)) return {};
  const lines = [headline[result.mode](result.inbox)];
  if (result.accountId !== result.inbox) lines.push(`accountId: ${result.accountId}.`);
  if (result.pow) {
    const seconds = (result.pow.elapsedMs / 1000).toFixed(1);
    lines.push(`Proof of work: ${result.pow.tried} hashes in ${seconds} s (difficulty ${result.pow.difficulty}).`);
  }
  lines.push(`Credentials directory: ${result.credentialsDir} (apiKey ${result.apiKeyMasked}).`);
  lines.push(`Daily job: ${result.watchJob.summary}`);
  if (result.watchJob.installed) {
    for (const command of result.watchJob.verify) lines.push(`Verify: ${command}`);
    if (result.watchJob.remove) lines.push(`Remove: ${result.watchJob.remove}`);
  }
  for (const step of result.next) lines.push(`Next: ${step}`);
  return { text: lines.join('\n') };
}

function isRegisterShown(value: unknown): value is RegisterShown {
  return (
    isRecord(value) &&
    typeof value.inbox === 'string' &&
    typeof value.mode === 'string' &&
    value.mode in headline &&
    isRecord(value.watchJob) &&
    Array.isArray(value.next)
  );
}
