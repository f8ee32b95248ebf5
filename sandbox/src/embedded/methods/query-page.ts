import { z } from 'zod';
import { MethodError } from '../protocol/method-error.js';

/** The paging arguments every /query shares (RFC 8620 §5.5). */
export const queryPageArgs = {
  position: z.number().int().optional(),
  anchor: z.string().nullable().optional(),
  anchorOffset: z.number().int().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
  calculateTotal: z.boolean().optional(),
};

/** One page of a query's full results, as RFC 8620 §5.5 positions it; `limit` is reported when the server's cap cut it. */
export function queryPage(
  ids: string[],
  input: {
    position?: number | undefined;
    anchor?: string | null | undefined;
    anchorOffset?: number | undefined;
    limit?: number | null | undefined;
    calculateTotal?: boolean | undefined;
  },
  cap: number,
): Record<string, unknown> {
  let position = input.position ?? 0;
  if (input.anchor != null) {
    const index = ids.indexOf(input.anchor);
    if (index < 0)
      throw new MethodError('anchorNotFound', `Anchor ${input.anchor} is not in the results; query again without it.`);
    position = Math.max(0, index + (input.anchorOffset ?? 0));
  } else if (position < 0) {
    position = Math.max(0, ids.length + position);
  }
  const limit = input.limit == null ? cap : Math.min(input.limit, cap);
  return {
    position,
    ids: ids.slice(position, position + limit),
    ...(input.calculateTotal ? { total: ids.length } : {}),
    ...(input.limit != null && input.limit > cap ? { limit: cap } : {}),
  };
}
