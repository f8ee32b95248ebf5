import type { EffectivePolicy, Sourced } from './effective-policy.js';

function list(entries: readonly { entry: string }[]): string {
  return entries.length === 0 ? 'nobody' : entries.map((e) => e.entry).join(', ');
}

function cap(value: Sourced<number> | null, label: string): string[] {
  return value ? [`at most ${value.value} ${label}`] : [];
}

/** The rules in force, in sentences an agent can plan with (what `watch_status` shows): not how to change them. */
export function describePolicy(policy: EffectivePolicy): string[] {
  const lines: string[] = [];
  const { send } = policy;
  const modes = send.modes.map((m) => m.value);
  if (modes.includes('off')) lines.push('Sending is off: no mail leaves this inbox.');
  else {
    if (modes.includes('allowlist'))
      lines.push(`Mail goes only to the allow-list: ${list(send.allow)}. Anyone else is refused.`);
    if (modes.includes('known'))
      lines.push(
        `Mail goes only to the allow-list (${list(send.allow)}), addresses this inbox has written to, and senders whose mail passed authentication. Anyone else is refused.`,
      );
    if (modes.includes('confirm'))
      lines.push(
        `Mail to anyone outside the allow-list (${list(send.allow)}) needs your operator's yes: asked in the host where it can, else held as a draft until they approve it.`,
      );
    if (modes.length === 0) lines.push('Mail may go to any address not blocked.');
  }
  if (send.block.length > 0) lines.push(`Never to: ${list(send.block)} (a domain covers its subdomains).`);
  const caps = [
    ...cap(send.maxSendsPerHour, 'sends per hour'),
    ...cap(send.maxSendsPerDay, 'sends per day'),
    ...cap(send.maxRecipients, 'recipients per mail'),
  ];
  if (caps.length > 0) lines.push(`Limits: ${caps.join(', ')}.`);
  if (send.secretScan.value === 'on')
    lines.push("Mail carrying credentials (keys, tokens, this inbox's apiKey) is refused.");
  if (send.attachFrom.length > 0)
    lines.push(`Attachments only from: ${send.attachFrom.map((a) => a.value).join(' and ')}.`);
  if (policy.newInboxes.value === 'off') lines.push('No new inbox may be registered and no other inbox logged in to.');
  lines.push(
    'Automatic replies, read receipts and redirects count as mail; a method the guard cannot judge is refused unless sending is open.',
  );
  return lines;
}
