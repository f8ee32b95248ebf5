import type { CheckContext, OutgoingBatch } from '../../../gate/outgoing.js';
import { scanForSecrets, type ScanPart } from '../../../policy/secret-scan.js';
import { guardScope } from '../guard-scope.js';
import { policyRefusal } from '../guard-refusal.js';
import { blobBytes, latin1 } from './blob-lookup.js';
import { isRecord } from '../../../is-record.js';

/**
 * Blobs made from other blobs (RFC 9404): a slice hides what gives a secret away (a private key cut below
 * its BEGIN line is only base64), so each source is scanned WHOLE when the blob is made; unreadable: refused.
 */

/** The Blob/upload creates of a batch that take other blobs, in order, with the ids they take. */
function composedCreates(outgoing: OutgoingBatch): { id: string; sources: unknown[]; referenced: boolean }[] {
  return outgoing.request.methodCalls.flatMap(([method, args]) => {
    if (method !== 'Blob/upload') return [];
    if ('#create' in args) return [{ id: '#create', sources: [], referenced: true }];
    return Object.entries(isRecord(args.create) ? args.create : {}).flatMap(([id, create]) => {
      const data = isRecord(create) && Array.isArray(create.data) ? create.data : [];
      const sources = data.filter(
        (item) => isRecord(item) && Object.keys(item).some((key) => key.replace(/^#/, '') === 'blobId'),
      );
      const referenced = data.some((item) => isRecord(item) && Object.keys(item).some((key) => key.startsWith('#')));
      return sources.length > 0 || referenced ? [{ id, sources, referenced }] : [];
    });
  });
}

/** Refuses a batch that composes a blob from a source carrying a secret (under the secret scan rule). */
export async function checkComposedBlobs(outgoing: OutgoingBatch, context: CheckContext): Promise<void> {
  const creates = composedCreates(outgoing);
  if (creates.length === 0) return;
  const rule = (await guardScope(context)).policy.send.secretScan;
  if (rule.value !== 'on') return;
  const batchUploads = new Map<string, unknown>();
  for (const [method, args] of outgoing.request.methodCalls) {
    if (method === 'Blob/upload' && isRecord(args.create))
      for (const [id, create] of Object.entries(args.create)) batchUploads.set(id, create);
  }
  for (const { id, sources, referenced } of creates) {
    const label = `the blob ${id} (Blob/upload)`;
    if (referenced)
      throw policyRefusal(
        `${label} takes its content from a result reference, so its sources cannot be checked for secrets`,
        { layer: 'default', rule: 'unjudgeable' },
      );
    const parts: ScanPart[] = [];
    for (const source of sources) {
      const blobId = isRecord(source) ? source.blobId : undefined;
      if (typeof blobId !== 'string')
        throw policyRefusal(`${label} names a source that is no blob id`, { layer: 'default', rule: 'unjudgeable' });
      parts.push({
        where: `the blob ${blobId} it is made from`,
        text: latin1(await blobBytes(context, blobId, batchUploads)),
      });
    }
    const findings = await scanForSecrets(parts);
    if (findings.length > 0) {
      throw policyRefusal(
        `${label} is made from a blob that carries what looks like a secret (${findings.map((f) => `${f.kind} in ${f.where}`).join('; ')}), and a piece of it may travel where the rest would be seen`,
        { layer: rule.from, rule: 'send.secretScan' },
        { findings },
      );
    }
  }
}
