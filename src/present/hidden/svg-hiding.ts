import type { Element } from 'domhandler';
import { minVisibleBoxPx } from './box-hiding.js';
import type { HidingTechnique } from './hiding-technique.js';
import { words } from './word-list.js';

export type SvgBox = { width: number | undefined; height: number | undefined; hasViewBox: boolean };

// SVG elements whose content is never drawn where it stands: descriptions, definitions, paint servers.
const undrawnSvgElements = new Set(
  words`desc title metadata defs symbol clippath mask pattern marker lineargradient radialgradient filter style script`,
);

/** An SVG length attribute in user units (a plain number or px); undefined for anything relative. */
function userUnits(value: string | undefined): number | undefined {
  const match = value === undefined ? null : /^\s*([+-]?(?:\d+\.?\d*|\.\d+))(px)?\s*$/i.exec(value);
  return match ? Number(match[1]) : undefined;
}

/**
 * What SVG does to text: an empty <svg> clips all it holds, definitions are not drawn, a <text> placed
 * beyond the <svg>'s box (or at y = 0, above its top) is not seen. Positions not placed here are named.
 */
export function svgHiding(
  element: Element,
  parentBox: SvgBox | undefined,
  fontPx: number,
  doubt: (reason: string) => void,
  cssPx: (property: string) => number | undefined = () => undefined,
): { hiddenBy: HidingTechnique | undefined; box: SvgBox | undefined } {
  const { name, attribs } = element;
  if (name === 'svg') {
    // CSS sizes the <svg> box over its attributes (SVG 2 §8.4); a percentage or keyword is taken as room enough.
    const side = (attribute: string | undefined, size: string): number | undefined => {
      const base = cssPx(size) ?? userUnits(attribute);
      const max = cssPx(`max-${size}`);
      return max === undefined ? base : Math.min(base ?? max, max);
    };
    const box = {
      width: side(attribs.width, 'width'),
      height: side(attribs.height, 'height'),
      hasViewBox: attribs.viewbox !== undefined,
    };
    const isEmpty =
      (box.width !== undefined && box.width < minVisibleBoxPx) ||
      (box.height !== undefined && box.height < minVisibleBoxPx);
    return { hiddenBy: isEmpty ? 'zero-size-box' : undefined, box };
  }
  if (undrawnSvgElements.has(name)) return { hiddenBy: 'not-rendered', box: parentBox };
  if (
    name === 'textpath' ||
    ((name === 'text' || name === 'tspan') &&
      (attribs.dx !== undefined || attribs.dy !== undefined || attribs.rotate !== undefined))
  ) {
    doubt(`SVG <${name}> placement`);
    return { hiddenBy: undefined, box: parentBox };
  }
  if (name !== 'text' && !(name === 'tspan' && (attribs.x !== undefined || attribs.y !== undefined)))
    return { hiddenBy: undefined, box: parentBox };
  const [x, y] = [attribs.x ?? '0', attribs.y ?? '0'].map((v) => userUnits(v.trim().split(/[\s,]+/)[0]));
  if (
    x === undefined ||
    y === undefined ||
    !parentBox ||
    parentBox.hasViewBox ||
    parentBox.width === undefined ||
    parentBox.height === undefined
  ) {
    doubt('SVG text placement');
    return { hiddenBy: undefined, box: parentBox };
  }
  // y is the baseline: text at y ≤ 0 sits above the top edge, text whose top is below the bottom edge is cut away.
  const isOutside = x >= parentBox.width || y <= 0 || y - fontPx >= parentBox.height || x <= -parentBox.width;
  if (!isOutside && x < 0) doubt('SVG text placement');
  return { hiddenBy: isOutside ? 'off-screen' : undefined, box: parentBox };
}
