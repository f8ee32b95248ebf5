import type { Preset } from '../jmap/preset-schema.js';

/** The `presets` help topic, generated from the preset declarations (presets/*.json). */
export function renderPresetsTopic(presets: readonly { name: string; preset: Preset }[]): string {
  const lines = [
    '# Presets',
    '',
    'Bundled JMAP flows for jmap_request: pass the name as ops_file and the variables as vars.',
    'Built-in placeholders ($ACCOUNT_ID, $INBOX, $INBOX_MAILBOX_ID, $IDENTITY_ID, ...) are filled by the client.',
    'Add dry_run: true to see the final request without sending anything.',
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
    if (preset.needsAttachments) lines.push('- attachments (required): local file paths the operator chose; each becomes an attachment.');
    if (preset.requires?.length) lines.push(`- Needs server support for: ${preset.requires.join(', ')}.`);
    const example: Record<string, unknown> = {};
    for (const [key, decl] of vars) if (decl.required || decl.example !== undefined) example[key] = decl.example ?? '…';
    lines.push('', `Example: ops_file "${name}", vars ${JSON.stringify(example)}${preset.needsAttachments ? ', attachments ["./report.pdf"]' : ''}`, '');
  }
  return lines.join('\n');
}
