import { partBlobId } from './part-blob-id.js';
import { decodeText, type MimePart } from './parse-message.js';
import { headerPropertyValue, parseHeaderProperty } from './header-forms.js';

/** The three body lists of RFC 8621 §4.1.4. */
export interface BodyLists {
  textBody: MimePart[];
  htmlBody: MimePart[];
  attachments: MimePart[];
}

const isInlineMediaType = (type: string): boolean => /^(image|audio|video)\//.test(type);

/** Splits a MIME tree into textBody/htmlBody/attachments with the algorithm of RFC 8621 §4.1.4. */
export function splitBody(root: MimePart): BodyLists {
  const lists: BodyLists = { textBody: [], htmlBody: [], attachments: [] };
  parseStructure([root], 'mixed', false, lists.htmlBody, lists.textBody, lists.attachments);
  return lists;
}

function parseStructure(
  parts: MimePart[],
  multipartType: string,
  inAlternative: boolean,
  htmlBody: MimePart[] | null,
  textBody: MimePart[] | null,
  attachments: MimePart[],
): void {
  const textLength = textBody ? textBody.length : -1;
  const htmlLength = htmlBody ? htmlBody.length : -1;
  parts.forEach((part, index) => {
    const isMultipart = part.type.startsWith('multipart/');
    const isInline =
      part.disposition !== 'attachment' &&
      (part.type === 'text/plain' || part.type === 'text/html' || isInlineMediaType(part.type)) &&
      (index === 0 || (multipartType !== 'related' && (isInlineMediaType(part.type) || !part.name)));
    if (isMultipart) {
      const subType = part.type.split('/')[1] ?? 'mixed';
      parseStructure(
        part.subParts ?? [],
        subType,
        inAlternative || subType === 'alternative',
        htmlBody,
        textBody,
        attachments,
      );
    } else if (isInline) {
      if (multipartType === 'alternative') {
        if (part.type === 'text/plain') textBody?.push(part);
        else if (part.type === 'text/html') htmlBody?.push(part);
        else attachments.push(part);
        return;
      }
      if (inAlternative) {
        if (part.type === 'text/plain') htmlBody = null;
        if (part.type === 'text/html') textBody = null;
      }
      textBody?.push(part);
      htmlBody?.push(part);
      if ((!textBody || !htmlBody) && isInlineMediaType(part.type)) attachments.push(part);
    } else {
      attachments.push(part);
    }
  });
  if (multipartType === 'alternative' && textBody && htmlBody) {
    if (textLength === textBody.length && htmlLength !== htmlBody.length) textBody.push(...htmlBody.slice(htmlLength));
    if (htmlLength === htmlBody.length && textLength !== textBody.length) htmlBody.push(...textBody.slice(textLength));
  }
}

/** Default EmailBodyPart properties (RFC 8621 §4.2 bodyProperties). */
export const defaultBodyProperties = [
  'partId',
  'blobId',
  'size',
  'name',
  'type',
  'charset',
  'disposition',
  'cid',
  'language',
  'location',
];

/** Renders an EmailBodyPart of the message stored as `containerBlobId` with the requested properties. */
export function renderBodyPart(containerBlobId: string, part: MimePart, properties: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const property of properties) {
    switch (property) {
      case 'partId':
        out['partId'] = part.partId;
        break;
      case 'blobId':
        out['blobId'] = part.partId === null ? null : partBlobId(containerBlobId, part.partId);
        break;
      case 'size':
        out['size'] = part.content.length;
        break;
      case 'headers':
        out['headers'] = part.headers;
        break;
      case 'subParts':
        out['subParts'] = part.subParts
          ? part.subParts.map((child) => renderBodyPart(containerBlobId, child, properties))
          : null;
        break;
      case 'name':
      case 'type':
      case 'charset':
      case 'disposition':
      case 'cid':
      case 'language':
      case 'location':
        out[property] = part[property];
        break;
      default: {
        const header = parseHeaderProperty(property);
        if (header) out[property] = headerPropertyValue(part.headers, header);
      }
    }
  }
  return out;
}

/** An EmailBodyValue (RFC 8621 §4.1.4), truncated to maxBytes UTF-8 octets without splitting a character. */
export function bodyValue(
  part: MimePart,
  maxBytes: number,
): { value: string; isEncodingProblem: boolean; isTruncated: boolean } {
  const decoded = decodeText(part);
  let value = decoded.value;
  let isTruncated = false;
  if (maxBytes > 0 && Buffer.byteLength(value) > maxBytes) {
    const cut = Buffer.from(value).subarray(0, maxBytes).toString('utf8');
    value = cut.endsWith('\uFFFD') ? cut.slice(0, -1) : cut;
    isTruncated = true;
  }
  return { value, isEncodingProblem: decoded.isEncodingProblem, isTruncated };
}

/** Plain text of a part for previews and searches; HTML is stripped of tags. */
export function plainText(part: MimePart): string {
  const { value } = decodeText(part);
  return part.type === 'text/html' ? htmlToText(value) : value;
}

/** Text of an HTML document: scripts, styles and tags dropped, the common entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** Up to 256 characters of body text, whitespace collapsed (RFC 8621 §4.1.4 preview). */
export function preview(lists: BodyLists): string {
  const source = lists.textBody.length ? lists.textBody : lists.htmlBody;
  const text = source
    .filter((part) => part.type.startsWith('text/'))
    .map(plainText)
    .join(' ');
  return [...text.replace(/\s+/g, ' ').trim()].slice(0, 256).join('');
}
