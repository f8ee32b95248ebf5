import type { Preset } from '../presets/preset-schema.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The presets as one Markdown table (name, variables, what it does), from presets/*.json like the `presets` topic. */
export function renderPresetTable(presets: readonly { name: string; preset: Preset }[]): string {
  const rows = presets.map(({ name, preset }) => {
    const vars = Object.entries(preset.variables).map(([key, decl]) => (decl.required ? `\`${key}\`` : `\`${key}\`?`));
    if (preset.needsAttachments) vars.push('attachments');
    return `| \`${name}\` | ${vars.join(', ') || '—'} | ${cell(preset.description)} |`;
  });
  return ['| preset | variables (? = optional) | what it does |', '| --- | --- | --- |', ...rows].join('\n');
}
