import PostalMime, { decodeWords } from 'postal-mime';
import { TextDecoder } from 'node:util';
import { z } from 'zod';

/** One raw header field: original name, value as written (unfolded). */
export interface RawHeader {
  name: string;
  value: string;
}

/** One node of the MIME tree, in RFC 8621 §4.1.4 EmailBodyPart terms. */
export interface MimePart {
  /** IMAP-style section number for leaves ("1", "2.1"); null for multipart nodes (RFC 8621 §4.1.4). */
  partId: string | null;
  headers: RawHeader[];
  type: string;
  charset: string | null;
  disposition: string | null;
  name: string | null;
  cid: string | null;
  language: string[] | null;
  location: string | null;
  /** Content after transfer decoding; empty for multipart nodes. */
  content: Buffer;
  subParts: MimePart[] | null;
}

/** A stored message parsed once: top-level headers plus the MIME tree. */
export interface ParsedMessage {
  headers: RawHeader[];
  root: MimePart;
}

interface PostalNode {
  contentType: { parsed: { value: string; params: Record<string, string> }; multipart?: string | false | undefined };
  contentDisposition?: { parsed?: { value: string; params: Record<string, string> } | undefined } | undefined;
  headers: { key: string; originalKey: string; value: string }[];
  contentTransferEncoding?: { encoding?: string | undefined } | undefined;
  content?: ArrayBuffer | Uint8Array | null | undefined;
  childNodes: PostalNode[];
}

const structuredHeader = z.object({ value: z.string(), params: z.record(z.string(), z.string()) });

// postal-mime keeps its MIME tree on the parser instance (`root`) without declaring it in its types;
// this schema checks the few fields we read, so an upstream change fails loudly instead of silently.
const postalNode: z.ZodType<PostalNode> = z.lazy(() =>
  z.object({
    contentType: z.object({ parsed: structuredHeader, multipart: z.union([z.string(), z.literal(false)]).optional() }),
    contentDisposition: z.object({ parsed: structuredHeader.optional() }).optional(),
    headers: z.array(z.object({ key: z.string(), originalKey: z.string(), value: z.string() })),
    contentTransferEncoding: z.object({ encoding: z.string().optional() }).optional(),
    content: z
      .union([z.instanceof(ArrayBuffer), z.instanceof(Uint8Array)])
      .nullable()
      .optional(),
    childNodes: z.array(postalNode),
  }),
);

/** Parses raw RFC 5322 bytes with postal-mime into headers and a MIME tree. */
export async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
  const parser = new PostalMime({ forceRfc822Attachments: true });
  await parser.parse(raw);
  const tree = postalNode.parse((parser as unknown as { root: unknown }).root);
  const root = toPart(tree, '', true);
  return { headers: root.headers, root };
}

function toPart(node: PostalNode, path: string, isRoot: boolean): MimePart {
  const headers = node.headers.map((header) => ({ name: header.originalKey, value: header.value }));
  const type = node.contentType.parsed.value.toLowerCase() || 'text/plain';
  const params = node.contentType.parsed.params;
  const dispositionHeader = node.contentDisposition?.parsed;
  const isMultipart = type.startsWith('multipart/');
  const rawName = dispositionHeader?.params['filename'] ?? params['name'];
  const subParts = isMultipart
    ? node.childNodes.map((child, index) => toPart(child, path ? `${path}.${index + 1}` : String(index + 1), false))
    : null;
  let content: Buffer = node.content
    ? Buffer.from(node.content instanceof ArrayBuffer ? new Uint8Array(node.content) : node.content)
    : Buffer.alloc(0);
  // RFC 2046 §5.1.1: the line break before a boundary belongs to the boundary, but postal-mime
  // keeps it in the part's content; drop it so bodies round-trip exactly. Base64 never includes it.
  if (!isRoot && node.contentTransferEncoding?.encoding !== 'base64') content = stripFinalLineBreak(content);
  return {
    partId: isMultipart ? null : path || (isRoot ? '1' : path),
    headers,
    type,
    charset: params['charset']?.toLowerCase() ?? (type.startsWith('text/') ? 'us-ascii' : null),
    disposition: dispositionHeader?.value ? dispositionHeader.value.toLowerCase() : null,
    name: rawName ? decodeWords(rawName) : null,
    cid: stripAngles(headerValue(headers, 'content-id')),
    language: splitList(headerValue(headers, 'content-language')),
    location: headerValue(headers, 'content-location')?.trim() ?? null,
    content: isMultipart ? Buffer.alloc(0) : content,
    subParts,
  };
}

function stripFinalLineBreak(content: Buffer): Buffer {
  if (content.at(-1) !== 0x0a) return content;
  return content.subarray(0, content.at(-2) === 0x0d ? -2 : -1);
}

function headerValue(headers: RawHeader[], name: string): string | undefined {
  return headers.findLast((header) => header.name.toLowerCase() === name)?.value;
}

function stripAngles(value: string | undefined): string | null {
  if (!value) return null;
  return value.trim().replace(/^<(.*)>$/, '$1');
}

function splitList(value: string | undefined): string[] | null {
  if (!value) return null;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length ? items : null;
}

/** Finds a leaf part by its partId. */
export function findPart(root: MimePart, partId: string): MimePart | undefined {
  if (root.partId === partId) return root;
  for (const child of root.subParts ?? []) {
    const found = findPart(child, partId);
    if (found) return found;
  }
  return undefined;
}

/** Decodes a text part's content with its charset; flags bytes that do not decode (RFC 8621 isEncodingProblem). */
export function decodeText(part: MimePart): { value: string; isEncodingProblem: boolean } {
  const label = part.charset ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label === 'us-ascii' ? 'utf-8' : label, { fatal: true });
  } catch {
    return { value: new TextDecoder('utf-8').decode(part.content), isEncodingProblem: true };
  }
  try {
    return { value: decoder.decode(part.content), isEncodingProblem: false };
  } catch {
    return {
      value: new TextDecoder(label === 'us-ascii' ? 'utf-8' : label).decode(part.content),
      isEncodingProblem: true,
    };
  }
}
