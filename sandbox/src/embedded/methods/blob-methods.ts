import { createHash } from 'node:crypto';
import { TextDecoder } from 'node:util';
import { z } from 'zod';
import { jmapCapabilities } from '../../wire-constants.js';
import { accountLimits, jmapLimits } from '../protocol/jmap-limits.js';
import { MethodError, setError, type SetError } from '../protocol/method-error.js';
import {
  checkObjectLimit,
  checkProperties,
  parseArgs,
  resolveCreationId,
  type MethodContext,
  type MethodDefinition,
} from './method-context.js';

const dataSource = z.union([
  z.object({ 'data:asText': z.string() }).strict(),
  z.object({ 'data:asBase64': z.string() }).strict(),
  z
    .object({
      blobId: z.string(),
      offset: z.number().int().nonnegative().nullable().optional(),
      length: z.number().int().nonnegative().nullable().optional(),
    })
    .strict(),
]);
const uploadObject = z.object({ data: z.array(dataSource).min(1), type: z.string().nullable().optional() });

const uploadArgs = z.object({
  accountId: z.string().optional(),
  create: z.record(z.string(), z.record(z.string(), z.unknown())),
});
const getArgs = z.object({
  accountId: z.string().optional(),
  ids: z.array(z.string()),
  properties: z.array(z.string()).nullable().optional(),
  offset: z.number().int().nonnegative().nullable().optional(),
  length: z.number().int().nonnegative().nullable().optional(),
});
const blobProperties = [
  'data',
  'data:asText',
  'data:asBase64',
  'digest:sha',
  'digest:sha-256',
  'digest:sha-512',
  'size',
];
const digests: Record<string, string> = {
  'digest:sha': 'sha1',
  'digest:sha-256': 'sha256',
  'digest:sha-512': 'sha512',
};

/** Blob/upload and Blob/get (RFC 9404 §4). */
export const blobMethods: Record<string, MethodDefinition> = {
  'Blob/upload': {
    capability: jmapCapabilities.blob,
    async run(args, ctx) {
      const input = parseArgs(uploadArgs, args);
      checkObjectLimit(Object.keys(input.create).length, jmapLimits.maxObjectsInSet, 'maxObjectsInSet');
      const created: Record<string, unknown> = {};
      const notCreated: Record<string, SetError> = {};
      for (const [creationId, object] of Object.entries(input.create)) {
        try {
          const upload = await uploadOne(object, ctx);
          ctx.createdIds.set(creationId, upload.id);
          created[creationId] = { id: upload.id, type: upload.type, size: upload.size };
        } catch (error) {
          notCreated[creationId] =
            error instanceof MethodError
              ? { ...error.extra, type: error.type, description: error.message }
              : setError('invalidProperties', String(error));
        }
      }
      return {
        response: {
          accountId: ctx.account.address,
          created: Object.keys(created).length ? created : null,
          notCreated: Object.keys(notCreated).length ? notCreated : null,
        },
      };
    },
  },
  'Blob/get': {
    capability: jmapCapabilities.blob,
    async run(args, ctx) {
      const input = parseArgs(getArgs, args);
      checkProperties(input.properties, blobProperties);
      checkObjectLimit(input.ids.length, jmapLimits.maxObjectsInGet, 'maxObjectsInGet');
      const properties = input.properties ?? ['data', 'size'];
      const list: Record<string, unknown>[] = [];
      const notFound: string[] = [];
      for (const requested of input.ids) {
        const blob = await ctx.account.blobs.resolve(resolveCreationId(requested, ctx) ?? requested);
        if (!blob) {
          notFound.push(requested);
          continue;
        }
        list.push(renderBlob(requested, blob.data, properties, input.offset ?? 0, input.length ?? undefined));
      }
      return { response: { accountId: ctx.account.address, list, notFound } };
    },
  },
};

async function uploadOne(
  object: Record<string, unknown>,
  ctx: MethodContext,
): Promise<{ id: string; type: string; size: number }> {
  const parsed = uploadObject.safeParse(object);
  if (!parsed.success)
    throw new MethodError(
      'invalidProperties',
      `data: ${parsed.error.issues[0]?.message ?? 'invalid'}; use data:asText, data:asBase64 or blobId sources.`,
      { properties: ['data'] },
    );
  if (parsed.data.data.length > accountLimits.maxDataSources) {
    throw new MethodError(
      'invalidProperties',
      `At most ${accountLimits.maxDataSources} data sources per blob (maxDataSources).`,
      { properties: ['data'] },
    );
  }
  const chunks: Buffer[] = [];
  for (const source of parsed.data.data) {
    if ('data:asText' in source) chunks.push(Buffer.from(source['data:asText'], 'utf8'));
    else if ('data:asBase64' in source) chunks.push(Buffer.from(source['data:asBase64'], 'base64'));
    else {
      const blob = await ctx.account.blobs.resolve(resolveCreationId(source.blobId, ctx) ?? source.blobId);
      if (!blob)
        throw new MethodError('blobNotFound', `Blob ${source.blobId} is not in this account.`, {
          notFound: [source.blobId],
        });
      const start = source.offset ?? 0;
      const end = source.length != null ? start + source.length : blob.data.length;
      if (end > blob.data.length)
        throw new MethodError('invalidProperties', `Range ${start}+${end - start} is beyond blob ${source.blobId}.`, {
          properties: ['data'],
        });
      chunks.push(blob.data.subarray(start, end));
    }
  }
  const data = Buffer.concat(chunks);
  if (data.length > accountLimits.maxSizeBlobSet)
    throw new MethodError('tooLarge', `The blob exceeds maxSizeBlobSet (${accountLimits.maxSizeBlobSet} octets).`);
  return ctx.account.blobs.add(data, parsed.data.type ?? 'application/octet-stream');
}

function renderBlob(
  id: string,
  data: Buffer,
  properties: string[],
  offset: number,
  length: number | undefined,
): Record<string, unknown> {
  const slice = data.subarray(offset, length === undefined ? undefined : offset + length);
  const out: Record<string, unknown> = { id };
  let text: string | undefined;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(slice);
  } catch {
    text = undefined;
  }
  for (const property of properties) {
    if (property === 'size') out['size'] = data.length;
    else if (property === 'data:asBase64' || (property === 'data' && text === undefined))
      out['data:asBase64'] = slice.toString('base64');
    else if (property === 'data:asText' || property === 'data') {
      if (text === undefined) out['isEncodingProblem'] = true;
      out['data:asText'] = text ?? null;
    } else {
      const algorithm = digests[property];
      if (algorithm) out[property] = createHash(algorithm).update(slice).digest('base64');
    }
  }
  if (length !== undefined && offset + length > data.length) out['isTruncated'] = true;
  return out;
}
