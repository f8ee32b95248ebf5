import type { Preset } from '../presets/preset-schema.js';

/** The `presets` help topic, generated from the preset declarations (presets/*.json). */
export function renderPresetsTopic(presets: readonly { name: string; preset: Preset }[]): string {
  const lines = [
    '# Presets',
    '',
    'Bundled JMAP flows for jmap_request: pass the name as ops_file and the variables as vars.',
    'Built-in placeholders ($ACCOUNT_ID, $INBOX, $INBOX_MAILBOX_ID, $IDENTITY_ID, ...) are filled by the client.',
    'Add dry_run: true to see the final request without sending anything, echo_request: true to see it with the result.',
    'From a shell the same inputs are flags: --ops-file NAME --vars \'{"MAIL_ID":"..."}\' --dry-run --echo-request --attachment FILE.',
    "Results: a compact text to read (each message's content fenced once as untrusted), and the exact data in structuredContent",
    '(CLI: --json) with an "untrusted" list naming the mail-content values. list_inbox, list_new and search show one entry per',
    'message (id, date, flags, sender, subject, preview); read_message and read_thread show the text body, and say how to read more.',
    'Messages marked "automatic" (RFC 3834: Auto-Submitted, Precedence bulk/list/junk, List-Id) are never answered by reply or',
    'reply_all unless vars ALLOW_AUTOMATIC is true.',
    '',
  ];
  for (const { name, preset } of presets) {
    lines.push(`## ${name}`, '', preset.description, '');
    const vars = Object.entries(preset.variables);
    if (vars.length === 0 && !preset.needsAttachments) lines.push('Variables: none.');
    for (const [key, decl] of vars) {
      const flags = [decl.required ? 'required' : 'optional'];
      if (decl.default !== undefined) flags.push(`default ${JSON.stringify(decl.default)}`);
      lines.push(`- ${key} (${flags.join(', ')}): ${decl.description}`);
    }
    if (preset.atLeastOneOf) lines.push(`- Give at least one of ${preset.atLeastOneOf.join(', ')}.`);
    if (preset.needsAttachments)
      lines.push('- attachments (required): local file paths the operator chose; each becomes an attachment.');
    if (preset.requires?.length) lines.push(`- Needs server support for: ${preset.requires.join(', ')}.`);
    const example: Record<string, unknown> = {};
    for (const [key, decl] of vars) if (decl.required || decl.example !== undefined) example[key] = decl.example ?? '…';
    lines.push(
      '',
      `Example: ops_file "${name}", vars ${JSON.stringify(example)}${preset.needsAttachments ? ', attachments ["./report.pdf"]' : ''}`,
      '',
    );
  }
  return lines.join('\n');
}
