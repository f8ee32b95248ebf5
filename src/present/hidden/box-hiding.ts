import { resolveLength, type LengthBasis } from './css/css-length.js';
import type { HidingTechnique } from './hiding-technique.js';
import { functionCall, splitComponents } from './css/parse-declarations.js';

/**
 * How far a box must be moved out of place to count as off-screen: 500px, or the screen's width
 * (height) when that is less, so that `left: -100%` is off-screen on a phone too. The usual hiding
 * values are −999px to −10000px; a mail column is 600–800px wide, and layout tricks that pull
 * content over an image move it tens or a few hundred pixels.
 */
export const offScreenPx = 500;

/**
 * A box (or clip rectangle) narrower or shorter than this, with its overflow clipped, shows at
 * most a sliver of one line: the same bound as the smallest readable font size.
 */
export const minVisibleBoxPx = 4;

type Read = (property: string) => string | undefined;

/** Whether a box of this display type takes a width and height (CSS 2 §10.2, §10.5: not inline boxes, not table parts). */
function takesSize(display: string): boolean {
  return !/^(inline|inline flow|contents|none|ruby.*|table-.*|table|inline-table)$/.test(display);
}

function clipsOverflow(read: Read): boolean {
  return [read('overflow-x'), read('overflow-y')].some((v) => v !== undefined && /^(hidden|clip|scroll|auto|overlay)$/i.test(v));
}

/**
 * Hiding by the box an element makes: a zero-size box with its overflow clipped, a box placed far
 * off-screen, clipped to nothing, or scaled to nothing. Undefined when the box shows its content.
 */
export function boxHiding(read: Read, display: string, basis: LengthBasis): HidingTechnique | undefined {
  const position = (read('position') ?? 'static').toLowerCase();
  const isOutOfFlow = position === 'absolute' || position === 'fixed';
  const float = (read('float') ?? 'none').toLowerCase();
  // Absolute positioning and floats make an inline box a block (CSS 2 §9.7).
  const boxDisplay = (isOutOfFlow || (float !== 'none' && float !== 'initial')) && /^inline/.test(display) ? 'block' : display;
  const length = (property: string, percentOf: number | undefined): number | undefined => {
    const value = read(property);
    return value === undefined ? undefined : resolveLength(value, { ...basis, percentOf });
  };
  const isTransformable = boxDisplay !== 'inline' && boxDisplay !== 'contents';
  if (isTransformable) {
    const transformed = transformHiding(read, basis);
    if (transformed) return transformed;
  }
  if (takesSize(boxDisplay) && clipsOverflow(read)) {
    for (const property of ['height', 'max-height', 'width', 'max-width']) {
      const size = length(property, undefined);
      if (size !== undefined && size < minVisibleBoxPx) return 'zero-size-box';
    }
  }
  const [farX, farY] = [Math.min(offScreenPx, basis.viewportWidth), Math.min(offScreenPx, basis.viewportHeight)];
  if (position === 'relative' || isOutOfFlow) {
    const [left, top] = [length('left', basis.viewportWidth), length('top', basis.viewportHeight)];
    const [right, bottom] = [length('right', basis.viewportWidth), length('bottom', basis.viewportHeight)];
    if ((left ?? 0) <= -farX || (top ?? 0) <= -farY || (right ?? 0) >= farX || (bottom ?? 0) >= farY) return 'off-screen';
  }
  const marginLeft = length('margin-left', basis.viewportWidth);
  // Vertical margins do not move an inline box (CSS 2 §10.6.1).
  const marginTop = boxDisplay === 'inline' ? undefined : length('margin-top', basis.viewportWidth);
  if ((marginLeft ?? 0) <= -farX || (marginTop ?? 0) <= -farY) return 'off-screen';
  if (isOutOfFlow && isClipRectEmpty(read('clip'), basis)) return 'clipped';
  if (isClipPathEmpty(read('clip-path'), basis)) return 'clipped';
  return undefined;
}

/**
 * How much `transform` and `scale` shrink the element's content (the smaller axis; 1 when they
 * do not). Text scaled below a readable size is hidden as tiny text is; scale(0) is caught whole.
 */
export function transformScale(read: Read, display: string): number {
  if (display === 'inline' || display === 'contents') return 1;
  let factor = 1;
  const scale = read('scale');
  if (scale && !/^(none|initial|inherit|unset)$/i.test(scale)) {
    const axes = splitComponents(scale).slice(0, 2).map(numberOf);
    if (axes.every((a) => a !== undefined)) factor *= Math.min(...axes.map((a) => Math.abs(a as number)));
  }
  for (const part of splitComponents(read('transform') ?? '')) {
    const call = functionCall(part);
    const args = call ? splitComponents(call.args).filter((a) => a !== ',').map(numberOf) : [];
    if (call?.name === 'scale' || call?.name === 'scale3d') factor *= Math.min(...args.slice(0, 2).map((a) => Math.abs(a ?? 1)));
    else if (call?.name === 'scalex' || call?.name === 'scaley') factor *= Math.abs(args[0] ?? 1);
    else if (call?.name === 'matrix' && args.length === 6 && args.every((a) => a !== undefined)) {
      const [a, b, c, d] = args as number[];
      factor *= Math.sqrt(Math.abs((a as number) * (d as number) - (b as number) * (c as number)));
    }
  }
  return factor;
}

function numberOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number.parseFloat(text);
  return Number.isFinite(value) ? (text.trim().endsWith('%') ? value / 100 : value) : undefined;
}

function transformHiding(read: Read, basis: LengthBasis): HidingTechnique | undefined {
  const number = numberOf;
  const far = (text: string | undefined): boolean => {
    const value = text === undefined ? undefined : resolveLength(text, { ...basis, percentOf: undefined });
    return value !== undefined && value <= -Math.min(offScreenPx, basis.viewportWidth);
  };
  const scale = read('scale');
  if (scale && scale !== 'none' && splitComponents(scale).some((part) => number(part) === 0)) return 'scaled-to-zero';
  const translate = read('translate');
  if (translate && splitComponents(translate).some(far)) return 'off-screen';
  for (const part of splitComponents(read('transform') ?? '')) {
    const call = functionCall(part);
    if (!call) continue;
    const args = splitComponents(call.args).filter((a) => a !== ',');
    if (/^scale(x|y|3d)?$/.test(call.name)) {
      const axes = call.name === 'scale3d' ? args.slice(0, 2) : args;
      if (axes.some((a) => number(a) === 0)) return 'scaled-to-zero';
    } else if (/^translate(x|y|3d)?$/.test(call.name)) {
      if (args.slice(0, 2).some(far)) return 'off-screen';
    } else if (call.name === 'matrix' && args.length === 6) {
      const [a, b, c, d, e, f] = args.map(number);
      if (a !== undefined && b !== undefined && c !== undefined && d !== undefined && a * d - b * c === 0) return 'scaled-to-zero';
      if ((e ?? 0) <= -offScreenPx || (f ?? 0) <= -offScreenPx) return 'off-screen';
    }
  }
  return undefined;
}

/** `clip: rect(top right bottom left)` (CSS 2 §11.1.2) that leaves less than a sliver; `auto` sides do not clip. */
function isClipRectEmpty(value: string | undefined, basis: LengthBasis): boolean {
  const call = value === undefined ? undefined : functionCall(value.trim());
  if (!call || call.name !== 'rect') return false;
  const sides = splitComponents(call.args)
    .filter((a) => a !== ',')
    .map((side) => (side.toLowerCase() === 'auto' ? undefined : resolveLength(side, { ...basis, percentOf: undefined })));
  if (sides.length !== 4) return false;
  const [top, right, bottom, left] = sides;
  return (top !== undefined && bottom !== undefined && bottom - top < minVisibleBoxPx) || (left !== undefined && right !== undefined && right - left < minVisibleBoxPx);
}

/** `clip-path: inset(50%)`, `circle(0)`, `ellipse(0 0)`: shapes that keep nothing of the box. */
function isClipPathEmpty(value: string | undefined, basis: LengthBasis): boolean {
  const call = value === undefined ? undefined : functionCall(value.trim());
  if (!call) return false;
  const args = splitComponents(call.args).filter((a) => a !== ',');
  if (call.name === 'circle' || call.name === 'ellipse') {
    const radius = args[0] === undefined || args[0] === 'at' ? undefined : resolveLength(args[0], { ...basis, percentOf: undefined });
    return radius !== undefined && radius <= 0;
  }
  if (call.name !== 'inset') return false;
  const round = args.indexOf('round');
  const [top, right = top, bottom = top, left = right] = round === -1 ? args : args.slice(0, round);
  const percent = (a: string | undefined, b: string | undefined): number | undefined =>
    a?.endsWith('%') && b?.endsWith('%') ? Number.parseFloat(a) + Number.parseFloat(b) : undefined;
  const px = (a: string | undefined, b: string | undefined): number | undefined => {
    const [x, y] = [a, b].map((v) => (v === undefined ? undefined : resolveLength(v, { ...basis, percentOf: undefined })));
    return x !== undefined && y !== undefined ? x + y : undefined;
  };
  return (percent(top, bottom) ?? 0) >= 100 || (percent(left, right) ?? 0) >= 100 || (px(left, right) ?? 0) >= basis.viewportWidth;
}
