import { parseCssColour } from '../../../../src/present/hidden/colour/css-colour.js';

/**
 * Pushes the colour parser's memo past its bound with values never seen before, so the next parse
 * of any value is computed afresh: files share their worker's modules, and a value parsed by an
 * earlier file (or an earlier run) would otherwise come from the memo, not from the code under test.
 */
export function forgetParsedColours(): void {
  const run = Math.random().toString(36).slice(2);
  for (let i = 0; i < 520; i++) parseCssColour(`rgb(${i} 0 0 / 0.${run})`, undefined, false);
}
