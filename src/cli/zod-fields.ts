import type { z } from 'zod';

/** The shape of one input field, as far as building a command-line flag needs to know. */
export interface FieldShape {
  kind: 'string' | 'boolean' | 'number' | 'array' | 'record' | 'enum' | 'other';
  required: boolean;
  describe: string;
  choices?: readonly string[];
}

/** Reads a zod field (unwrapping optional/default) into a FieldShape. */
export function describeField(field: z.ZodType): FieldShape {
  let inner: z.ZodType = field;
  // zod 4 keeps wrappers in def.innerType; optional and default are the only ones the table uses.
  while (inner.def.type === 'optional' || inner.def.type === 'default') {
    inner = (inner.def as unknown as { innerType: z.ZodType }).innerType;
  }
  const type = inner.def.type;
  const kind: FieldShape['kind'] =
    type === 'string' ||
    type === 'boolean' ||
    type === 'number' ||
    type === 'array' ||
    type === 'record' ||
    type === 'enum'
      ? type
      : 'other';
  const shape: FieldShape = {
    kind,
    required: !field.safeParse(undefined).success,
    describe: field.description ?? inner.description ?? '',
  };
  if (kind === 'enum') shape.choices = (inner as unknown as { options: readonly string[] }).options;
  return shape;
}

export { toKebab } from '../render/describe-next.js';
