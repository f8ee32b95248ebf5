import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { planJmapRequest, varsObject } from '../../../src/request/plan-request.js';
import { listPresets, loadOpsFile } from '../../../src/presets/load-preset.js';
import { applicableNext } from '../../../src/presets/preset-next-steps.js';
import { presetVariables } from '../../../src/presets/preset-variables.js';
import { applyTransform, replySubject, resolvePointer } from '../../../src/presets/preset-transforms.js';
import { omitValue } from '../../../src/presets/substitute-variables.js';

describe('bundled presets', () => {
  it('are all valid declarations, including the ten of issue 3', async () => {
    const names = (await listPresets()).map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'list_inbox',
        'list_new',
        'read_message',
        'search',
        'send_mail',
        'send_mail_attachment',
        'send_mail_blob_attachment',
        'reply',
        'mark_read',
        'move_to_trash',
      ]),
    );
  });

  it('load by bare name or with .json', async () => {
    expect((await loadOpsFile('list_inbox')).kind).toBe('preset');
    expect((await loadOpsFile('list_inbox.json')).kind).toBe('preset');
  });

  it('read and validate a bundled preset once per process, and share it frozen', async () => {
    const first = await loadOpsFile('list_new');
    const again = await loadOpsFile('list_new.json');
    if (first.kind !== 'preset' || again.kind !== 'preset') throw new Error('list_new is a bundled preset');
    expect(again.preset).toBe(first.preset);
    expect(Object.isFrozen(first.preset) && Object.isFrozen(first.preset.steps)).toBe(true);
    // What listPresets reads from the files is the same preset.
    expect((await listPresets()).find((p) => p.name === 'list_new')?.preset).toEqual(first.preset);
  });

  it('answer an unknown name with preset_unknown listing the presets', async () => {
    const error = (await loadOpsFile('list_everything').catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('preset_unknown');
    expect(error.hint).toContain('list_inbox');
  });

  it('load a path as ops, or as a preset when the file declares steps', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'ops-file-'));
    try {
      await writeFile(join(dir, 'ops.json'), '[["Core/echo", {}, "e"]]');
      await writeFile(
        join(dir, 'mine.json'),
        JSON.stringify({
          description: 'd',
          variables: {},
          steps: [{ id: 's', methodCalls: [['Core/echo', {}, 'e']] }],
        }),
      );
      await writeFile(join(dir, 'broken.json'), '{"steps": 3}');
      expect(await loadOpsFile(join(dir, 'ops.json'))).toEqual({
        kind: 'ops',
        path: join(dir, 'ops.json'),
        ops: [['Core/echo', {}, 'e']],
      });
      expect(await loadOpsFile(join(dir, 'mine.json'))).toMatchObject({ kind: 'preset', name: 'mine' });
      await expect(loadOpsFile(join(dir, 'broken.json'))).rejects.toMatchObject({ code: 'ops_invalid' });
      await expect(loadOpsFile(join(dir, 'absent.json'))).rejects.toMatchObject({ code: 'ops_invalid' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('never put a result reference inside a create object (JMAP forbids it)', async () => {
    for (const { name, preset } of await listPresets()) {
      for (const step of preset.steps) {
        for (const [, args] of step.methodCalls) {
          const create = JSON.stringify(args.create ?? {});
          expect(create, name).not.toMatch(/"#[a-zA-Z]+":\s*\{\s*"resultOf"/);
        }
      }
    }
  });
});

describe('presetVariables', () => {
  it('applies defaults, turns a numeric string LIMIT into a number and addresses into objects', async () => {
    const { preset } = (await listPresets()).find((p) => p.name === 'send_mail')!;
    const vars = presetVariables(preset, 'send_mail', {
      TO: 'Bob <bob@x.test>, carol@y.test',
      SUBJECT: 'S',
      BODY: 'B',
    });
    expect(vars.TO).toEqual([{ email: 'bob@x.test', name: 'Bob' }, { email: 'carol@y.test' }]);
    expect(vars.CC).toBe(omitValue);
    const list = (await listPresets()).find((p) => p.name === 'list_inbox')!;
    expect(presetVariables(list.preset, 'list_inbox', { LIMIT: '5' }).LIMIT).toBe(5);
    expect(presetVariables(list.preset, 'list_inbox', {}).LIMIT).toBe(20);
  });

  it('names every missing required variable at once', async () => {
    const { preset } = (await listPresets()).find((p) => p.name === 'send_mail')!;
    let error: unknown;
    try {
      presetVariables(preset, 'send_mail', {});
    } catch (e) {
      error = e;
    }
    expect((error as MailboxError).code).toBe('vars_missing');
    expect((error as MailboxError).details?.missing).toEqual(['BODY', 'SUBJECT', 'TO']);
  });

  it('refuses a malformed address with vars_invalid', async () => {
    const { preset } = (await listPresets()).find((p) => p.name === 'send_mail')!;
    expect(() => presetVariables(preset, 'send_mail', { TO: 'not an address', SUBJECT: 'S', BODY: 'B' })).toThrow(
      /e-mail addresses/,
    );
  });

  it('requires at least one search criterion', async () => {
    const { preset } = (await listPresets()).find((p) => p.name === 'search')!;
    expect(() => presetVariables(preset, 'search', {})).toThrow(/at least one of TEXT, FROM, SUBJECT/);
    expect(presetVariables(preset, 'search', { FROM: 'bob' }).TEXT).toBe(omitValue);
  });
});

describe('capture transforms', () => {
  it('adds Re: once and never stacks it', () => {
    expect(replySubject('Hello')).toBe('Re: Hello');
    expect(replySubject('Re: Hello')).toBe('Re: Hello');
    expect(replySubject('RE:Hello')).toBe('RE:Hello');
    expect(replySubject('re : x')).toBe('re : x');
  });

  it('replies to replyTo when present, else from', () => {
    expect(applyTransform('reply_to', { replyTo: [{ email: 'r@x' }], from: [{ email: 'f@x' }] })).toEqual([
      { email: 'r@x' },
    ]);
    expect(applyTransform('reply_to', { replyTo: null, from: [{ email: 'f@x' }] })).toEqual([{ email: 'f@x' }]);
    expect(applyTransform('reply_to', { replyTo: [], from: [{ email: 'f@x' }] })).toEqual([{ email: 'f@x' }]);
  });

  it('builds References from references, else inReplyTo, plus the Message-ID', () => {
    expect(applyTransform('reply_references', { references: ['<a>'], inReplyTo: ['<b>'], messageId: ['<c>'] })).toEqual(
      ['<a>', '<c>'],
    );
    expect(applyTransform('reply_references', { references: null, inReplyTo: ['<b>'], messageId: ['<c>'] })).toEqual([
      '<b>',
      '<c>',
    ]);
    expect(applyTransform('reply_references', { messageId: ['<c>'] })).toEqual(['<c>']);
    expect(applyTransform('reply_references', {})).toBeNull();
  });

  it('resolves RFC 6901 pointers with escapes', () => {
    expect(resolvePointer({ list: [{ 'a/b': { '~x': 1 } }] }, '/list/0/a~1b/~0x')).toBe(1);
    expect(resolvePointer({ list: [] }, '/list/0/subject')).toBeUndefined();
  });
});

describe('jmap_request plan: files are never dropped silently', () => {
  const files = ['./report.pdf'];
  const vars = { TO: 'bob@example.com', SUBJECT: 'Report', BODY: 'attached' };

  it('refuses attachments with a preset or ops that do not use them, before anything is read or sent', async () => {
    for (const input of [
      { ops_file: 'send_mail', vars, attachments: files },
      {
        ops_file: 'send_mail_attachment',
        vars: { ...vars, ATTACHMENT_BASE64: 'eA==', ATTACHMENT_NAME: 'x.txt' },
        attachments: files,
      },
      { ops: [['Email/query', { accountId: '$ACCOUNT_ID' }, 'q']], attachments: files },
    ]) {
      const error = (await planJmapRequest(input).catch((e: unknown) => e)) as MailboxError;
      expect(error.code).toBe('attachment_invalid');
      expect(error.message).toMatch(/would go out without the files/);
      expect(error.next).toEqual(
        input.ops_file
          ? { operation: 'jmap_request', input: { ops_file: 'send_mail_blob_attachment', vars, attachments: files } }
          : expect.anything(),
      );
    }
  });

  it('accepts them where the request references $ATTACHMENTS', async () => {
    await expect(
      planJmapRequest({ ops_file: 'send_mail_blob_attachment', vars, attachments: files }),
    ).resolves.toMatchObject({ presetName: 'send_mail_blob_attachment' });
    await expect(
      planJmapRequest({
        ops: [['Email/set', { accountId: '$ACCOUNT_ID', create: { d: { attachments: '$ATTACHMENTS' } } }, 's']],
        attachments: files,
      }),
    ).resolves.toBeDefined();
  });
});

describe('vars given as JSON text (hosts that send every argument as a string)', () => {
  it('parses an object and refuses anything else with vars_invalid', () => {
    expect(varsObject('{"TO": "bob@example.com"}')).toEqual({ TO: 'bob@example.com' });
    expect(varsObject({ TO: 'x' })).toEqual({ TO: 'x' });
    expect(varsObject(undefined)).toBeUndefined();
    expect(() => varsObject('{TO: bob}')).toThrow(expect.objectContaining({ code: 'vars_invalid' }));
    expect(() => varsObject('["TO"]')).toThrow(expect.objectContaining({ code: 'vars_invalid' }));
  });
});

describe('conditional next steps of a preset', () => {
  const items = [
    {
      operation: 'jmap_request',
      input: { ops_file: 'read_message', vars: { MAIL_ID: '<id from the list>' } },
      when: 'listed' as const,
    },
    { text: 'More changes are waiting: run list_new again.', when: 'more_changes' as const },
    'Always said.',
  ];

  it('keeps each step only when the run fits it, without the condition', () => {
    expect(applicableNext(items, {}, { listed: [], moreChanges: false })).toEqual(['Always said.']);
    expect(applicableNext(items, {}, { listed: ['M1', 'M2'], moreChanges: true })).toEqual([
      { operation: 'jmap_request', input: { ops_file: 'read_message', vars: { MAIL_ID: '<id from the list>' } } },
      'More changes are waiting: run list_new again.',
      'Always said.',
    ]);
  });

  it('fills in the id when the listing holds one message, so the step runs as given', () => {
    expect(applicableNext(items, {}, { listed: ['M7'], moreChanges: false })).toEqual([
      { operation: 'jmap_request', input: { ops_file: 'read_message', vars: { MAIL_ID: 'M7' } } },
      'Always said.',
    ]);
  });
});
