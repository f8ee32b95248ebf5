import type { z } from 'zod';
import type { Operation } from './define-operation.js';
import { helpOperation } from './help.js';
import { jmapRequestOperation } from './jmap-request.js';
import { registerOperation } from './register.js';

/**
 * THE table: every MCP tool and every table-driven CLI command comes from this list. The cast
 * widens each entry's own input type to the common one: `run` is contravariant in its input, and
 * the front doors validate with the entry's own schema before calling it.
 */
export const operations: readonly Operation<z.ZodObject, z.ZodType>[] = [
  registerOperation,
  jmapRequestOperation,
  helpOperation,
] as unknown as readonly Operation<z.ZodObject, z.ZodType>[];
