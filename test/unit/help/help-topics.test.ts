import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCodes, MailboxError } from '../../../src/errors.js';
import { helpReferencesDir, listHelpTopics, readHelpTopic } from '../../../src/help/index.js';
import { listPresets } from '../../../src/presets/load-preset.js';

describe('help topics', () => {
  it('lists the nine topics in reading order', () => {
    expect(listHelpTopics()).toEqual([
      'overview',
      'tools',
      'auth',
      'jmap',
      'presets',
      'watch',
      'multi_account',
      'troubleshooting',
      'security',
    ]);
  });

  it('serves every topic as non-empty Markdown', async () => {
    for (const topic of listHelpTopics()) {
      const text = await readHelpTopic(topic);
      expect(text.startsWith('# '), topic).toBe(true);
      expect(text.length, topic).toBeGreaterThan(60);
    }
  });

  it('serves the generated blocks of a topic file without their markers, the block itself intact', async () => {
    const file = await readFile(join(helpReferencesDir(), 'troubleshooting.md'), 'utf8');
    expect(file).toContain('<!-- generated:exit-codes:start -->');
    const text = await readHelpTopic('troubleshooting');
    expect(text).not.toContain('<!-- generated:');
    expect(text).toContain('| 3 | refused by the operator');
    for (const topic of listHelpTopics()) expect(await readHelpTopic(topic), topic).not.toContain('<!-- generated:');
  });

  it('rejects an unknown topic with help_topic_unknown listing the topics', async () => {
    const error = await readHelpTopic('nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailboxError);
    expect((error as MailboxError).code).toBe('help_topic_unknown');
    expect((error as MailboxError).hint).toBe(`Topics: ${listHelpTopics().join(', ')}.`);
  });

  it('accepts a topic written with a hyphen or capitals', async () => {
    expect(await readHelpTopic('Multi-Account')).toContain('# Several inboxes');
  });

  it('explains every error code in troubleshooting', async () => {
    const text = await readHelpTopic('troubleshooting');
    const missing = errorCodes.filter((code) => !text.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });

  it('generates the presets topic from every preset declaration and its variables', async () => {
    const text = await readHelpTopic('presets');
    for (const { name, preset } of await listPresets()) {
      expect(text).toContain(`## ${name}`);
      expect(text).toContain(preset.description);
      for (const variable of Object.keys(preset.variables)) expect(text).toContain(`- ${variable} (`);
    }
  });

  it('renders the tools topic from the summaries it is given', async () => {
    const text = await readHelpTopic('tools', {
      tools: [
        {
          name: 'jmap_request',
          title: 'Read and send mail',
          description: 'Does JMAP.',
          inputs: [{ name: 'ops', required: false, describe: 'The calls.' }],
        },
      ],
    });
    expect(text).toContain('## jmap_request: Read and send mail');
    expect(text).toContain('- ops: The calls.');
  });

  it('reads topic files from skill/references, where the Agent Skill ships them', async () => {
    expect(await readHelpTopic('security')).toBe(await readFile(join(helpReferencesDir(), 'security.md'), 'utf8'));
  });

  it('ships skill/references/presets.md identical to the generated presets topic (UPDATE_REFERENCES=1 rewrites it)', async () => {
    const generated = await readHelpTopic('presets');
    const path = join(helpReferencesDir(), 'presets.md');
    if (process.env.UPDATE_REFERENCES === '1') await writeFile(path, generated);
    expect(await readFile(path, 'utf8')).toBe(generated);
  });
});
