// Type declarations for dependencies that ship none for the entry points used here.

declare module 'css-tree/parser' {
  import type { parse } from 'css-tree';
  /** css-tree's parser alone, without the lexer and its syntax dictionary (the package's "./parser" export). */
  const parseCss: typeof parse;
  export default parseCss;
}

declare module 'color-name' {
  /** The CSS named colours, lowercase name → [r, g, b]. */
  const colourNames: Readonly<Record<string, readonly [number, number, number]>>;
  export default colourNames;
}
