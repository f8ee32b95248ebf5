import type { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from '../auth/json-file-store.js';

/**
 * The file behind one of the OAuth stores: read once at open, then rewritten whole (atomically,
 * 0600) after every change, one write at a time, so two changes never race each other's rename.
 * Without a path the store lives in memory and nothing is written.
 */
export class JsonStoreFile<T> {
  private writeChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string | undefined,
    private readonly snapshot: () => T,
  ) {}

  /** What an earlier run kept, validated; undefined when nothing was kept. */
  read(schema: z.ZodType<T>): Promise<T | undefined> {
    return this.path === undefined ? Promise.resolve(undefined) : readJsonFile(this.path, schema);
  }

  /** Writes the current snapshot after any write still running. */
  save(): Promise<void> {
    const path = this.path;
    if (path === undefined) return Promise.resolve();
    const write = (): Promise<void> => writeJsonAtomic(path, this.snapshot());
    this.writeChain = this.writeChain.then(write, write);
    return this.writeChain;
  }
}
