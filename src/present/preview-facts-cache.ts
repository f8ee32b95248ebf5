import { BoundedLru } from '../remembered.js';
import type { PreviewFacts } from './assess-mail.js';

/**
 * The process's listing previews: a long session lists the same mail again and again, and reading
 * its HTML was most of a listing's work. Facts about bytes, never verdicts, so a rule change drops
 * nothing. 2,000 previews of 256 characters: well under a megabyte.
 */
export const previewFactsCache = new BoundedLru<string, PreviewFacts>(2_000);
