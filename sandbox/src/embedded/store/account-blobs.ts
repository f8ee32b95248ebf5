import { findPart, parseMessage, type ParsedMessage } from '../mime/parse-message.js';
import { splitPartBlobId } from '../mime/part-blob-id.js';
import type { AccountFiles } from './account-files.js';
import type { UploadRecord } from './records.js';
import { newId } from './new-id.js';

/** Parsed forms of blobs that are not stored messages (uploads, attached messages), kept for a few lookups. */
const parsedBlobCacheSize = 16;

/** A blob's bytes and media type. */
export interface Blob {
  data: Buffer;
  type: string;
}

/** What the blobs need of the stored messages: raw bytes and the cached parse, by email id. */
export interface StoredMessages {
  has(emailId: string): boolean;
  raw(emailId: string): Buffer;
  parsed(emailId: string): Promise<ParsedMessage>;
}

/**
 * The blobs of one inbox (RFC 8620 §6): uploads, stored messages (`B<emailId>`) and the parts of
 * either at any depth (part-blob-id.ts).
 */
export class AccountBlobs {
  readonly uploads = new Map<string, UploadRecord>();
  private readonly uploadData = new Map<string, Buffer>();
  private readonly parsedBlobs = new Map<string, Promise<ParsedMessage>>();

  constructor(
    private readonly messages: StoredMessages,
    private readonly files: AccountFiles | undefined,
    private readonly onChange: () => void,
    saved: UploadRecord[] = [],
  ) {
    for (const upload of saved) {
      this.uploads.set(upload.id, upload);
      if (files) this.uploadData.set(upload.id, files.readBlob(upload.id));
    }
  }

  /** Stores an uploaded blob. */
  add(data: Buffer, type: string): UploadRecord {
    const upload = { id: newId('G'), type, size: data.length, createdAt: new Date().toISOString() };
    this.uploads.set(upload.id, upload);
    this.uploadData.set(upload.id, data);
    this.files?.writeBlob(upload.id, data);
    this.onChange();
    return upload;
  }

  /** Any blob of this inbox by id, or undefined. */
  async resolve(blobId: string): Promise<Blob | undefined> {
    const split = splitPartBlobId(blobId);
    if (!split) return undefined;
    let blob = this.root(split.root);
    let containerId = split.root;
    for (const partId of split.partIds) {
      if (!blob) return undefined;
      const part = findPart((await this.parsed(containerId, blob.data)).root, partId);
      blob = part && part.subParts === null ? { data: part.content, type: part.type } : undefined;
      containerId = `${containerId}_${partId.replaceAll('.', '-')}`;
    }
    return blob;
  }

  /** The parsed form of a blob, by its id and bytes (stored messages use their own cache). */
  parsed(blobId: string, data: Buffer): Promise<ParsedMessage> {
    const emailId = /^B(M[0-9a-f]+)$/.exec(blobId)?.[1];
    if (emailId && this.messages.has(emailId)) return this.messages.parsed(emailId);
    let cached = this.parsedBlobs.get(blobId);
    if (!cached) {
      cached = parseMessage(data);
      if (this.parsedBlobs.size >= parsedBlobCacheSize)
        this.parsedBlobs.delete(this.parsedBlobs.keys().next().value as string);
      this.parsedBlobs.set(blobId, cached);
    }
    return cached;
  }

  private root(id: string): Blob | undefined {
    const upload = this.uploads.get(id);
    if (upload) {
      const data = this.uploadData.get(id);
      return data ? { data, type: upload.type } : undefined;
    }
    const emailId = /^B(M[0-9a-f]+)$/.exec(id)?.[1];
    return emailId && this.messages.has(emailId)
      ? { data: this.messages.raw(emailId), type: 'message/rfc822' }
      : undefined;
  }
}
