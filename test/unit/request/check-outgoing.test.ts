import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JmapRequest } from '../../../src/jmap/jmap-types.js';
import { readAudit } from '../../../src/policy/records/audit-log.js';
import { checkOutgoing, withCheckStage, type RequestGateContext } from '../../../src/request/check-outgoing.js';
import { fakeCheck, mailBatch } from '../../helpers/fake-check-context.js';
import { refusal } from '../../helpers/mailbox-refusal.js';

/**
 * The check stage's door: an upload is judged as one, a batch with any write goes to the guard
 * whole (reads riding along do not make it a read), and only a batch of reads passes unjudged.
 */

const query: [string, Record<string, unknown>, string] = ['Email/query', { accountId: 'acc-1' }, 'q'];

describe('checkOutgoing', () => {
  it('judges a send hidden behind a read in the same batch', async () => {
    const check = await fakeCheck();
    await check.inboxPolicy({ send: { block: ['evil.test'] } });
    const send = mailBatch([{ to: ['eve@evil.test'], subject: 'Out' }]);
    for (const methodCalls of [
      [query, ...send.methodCalls],
      [...send.methodCalls, query],
    ]) {
      const error = await refusal(checkOutgoing({ kind: 'batch', request: { ...send, methodCalls } }, check.context));
      expect(error.details).toMatchObject({ rule: { rule: 'send.block' }, recipient: 'eve@evil.test' });
    }
    expect(await readAudit(check.stateDir)).toMatchObject([{ verdict: 'refused' }, { verdict: 'refused' }]);
  });

  it('lets a batch of reads pass unjudged, even with sending off', async () => {
    const check = await fakeCheck();
    await check.inboxPolicy({ send: { mode: 'off' } });
    const reads: JmapRequest = {
      using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'],
      methodCalls: [query, ['Email/get', { accountId: 'acc-1', ids: ['M1'] }, 'g']],
    };
    expect(await checkOutgoing({ kind: 'batch', request: reads }, check.context)).toBeUndefined();
    expect(await readAudit(check.stateDir)).toEqual([]);
  });

  it('judges an upload as an upload: a file outside the attachment directory is refused', async () => {
    const check = await fakeCheck();
    const path = join(check.root, 'elsewhere', 'notes.txt');
    await mkdir(join(check.root, 'elsewhere'), { recursive: true });
    await writeFile(path, 'notes');
    await check.userPolicy({ send: { attachFrom: join(check.root, 'outgoing') } });
    const upload = {
      kind: 'upload' as const,
      bytes: Buffer.from('notes'),
      type: 'text/plain',
      source: { kind: 'file' as const, path },
    };
    const error = await refusal(checkOutgoing(upload, check.context));
    expect(error.details).toEqual({ rule: { layer: 'user', rule: 'send.attachFrom' }, path });
  });

  it("opens a gate with the check stage unless the caller brought its own recorder, keeping the rest of the caller's context", () => {
    const base = { signal: new AbortController().signal, frontDoor: 'mcp', isWake: true } as RequestGateContext;
    expect(withCheckStage(base)).toEqual({ ...base, check: checkOutgoing });
    const recorder: RequestGateContext['check'] = async () => undefined;
    expect(withCheckStage({ ...base, check: recorder })).toEqual({ ...base, check: recorder });
  });
});
