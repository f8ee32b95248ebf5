import { resolveLength, type LengthBasis } from './css/css-length.js';
import type { HidingTechnique } from './hiding-technique.js';
import { cssWideKeyword } from './css/css-wide-keywords.js';
import { functionCall, isCssNumber, splitComponents } from './css/parse-declarations.js';

/**
 * A box moved this far (or the screen's width or height, when less: `left: -100%` on a phone) is
 * off-screen. Hiding uses −999px to −10000px; layout tricks move content tens to hundreds of px.
 */
export const offScreenPx = 500;

/** A clipped box (or clip rect) narrower or shorter than this shows a sliver at most, as the smallest readable font. */
export const minVisibleBoxPx = 4;

export type Read = (property: string) => string | undefined;

/** Whether a box of this display type takes a width and height (CSS 2 §10.2, §10.5: not inline boxes, not table parts). */
function takesSize(display: string): boolean {
  return !/^(inline|inline flow|contents|none|ruby.*|table-.*|table|inline-table)$/.test(display);
}

function clipsOverflow(read: Read): boolean {
  return [read('overflow-x'), read('overflow-y')].some((v) => /^(hidden|clip|scroll|auto|overlay)$/i.test(v ?? ''));
}

/** A box moved by less than this stays in its own place: a nudge for alignment, not over other content. */
export const maxNudgePx = 20;

/** What boxHiding reports besides a verdict, and what it needs from the element's state. */
export interface BoxFacts {
  doubt: (reason: string) => void;
  /** Styling that may lay the element's box over other text. */
  overlay: (reason: string) => void;
  lineHeightPx: number | undefined;
  textIndentPx: number;
  isNoWrap: boolean;
  /** A box of fixed height that clips its overflow: how many characters of text it shows at most. */
  clipCapacity: (characters: number) => void;
  /** Transforms apply whatever the display (SVG content, which is laid out by its attributes, not as boxes). */
  isTransformable?: boolean;
}

/** Narrow glyphs average about 0.4em: a generous estimate of the characters a line holds, so ordinary text fits. */
const minCharWidthPerFontPx = 0.4;

/** Hiding by the element's box: clipped to zero size or to nothing, placed off-screen, scaled or turned edge-on. */
export function boxHiding(
  read: Read,
  display: string,
  basis: LengthBasis,
  facts: BoxFacts,
): HidingTechnique | undefined {
  const position = (read('position') ?? 'static').toLowerCase();
  if (!/^(static|relative|absolute|fixed|sticky|initial|inherit|unset|revert|revert-layer)$/.test(position))
    facts.doubt('position');
  const isOutOfFlow = position === 'absolute' || position === 'fixed';
  const boxDisplay = boxDisplayOf(read, display);
  const length = (property: string, percentOf: number | undefined): number | undefined => {
    const value = read(property);
    return value === undefined ? undefined : resolveLength(value, { ...basis, percentOf });
  };
  const isTransformable = facts.isTransformable === true || (boxDisplay !== 'inline' && boxDisplay !== 'contents');
  if (isTransformable) {
    const transformed = transformHiding(read, basis, facts);
    if (transformed) return transformed;
  }
  if (takesSize(boxDisplay) && clipsOverflow(read)) {
    for (const property of ['height', 'max-height', 'width', 'max-width']) {
      const value = read(property);
      const size = length(property, undefined);
      if ((size ?? Infinity) < minVisibleBoxPx) return 'zero-size-box';
      if (size === undefined && value !== undefined && !isSizeKeywordOrPercent(value)) facts.doubt(property);
    }
    // Lines of (nearly) no height in a box of automatic height: the box is as tall as its lines.
    if ((facts.lineHeightPx ?? Infinity) < minVisibleBoxPx && read('height') === undefined) return 'zero-size-box';
    if (facts.isNoWrap && facts.textIndentPx >= Math.min(offScreenPx, basis.viewportWidth)) return 'clipped';
    // A box of fixed height shows its first lines; text past them is cut off.
    const heights = [length('height', undefined), length('max-height', undefined)].filter(
      (h): h is number => h !== undefined,
    );
    if (heights.length > 0) {
      const lines = Math.max(1, Math.floor(Math.min(...heights) / (facts.lineHeightPx ?? basis.fontPx * 1.2)));
      const width = Math.min(
        length('width', basis.viewportWidth) ?? basis.viewportWidth,
        length('max-width', basis.viewportWidth) ?? basis.viewportWidth,
      );
      facts.clipCapacity(Math.ceil(lines * (width / (basis.fontPx * minCharWidthPerFontPx))));
    }
  }
  const [farX, farY] = [Math.min(offScreenPx, basis.viewportWidth), Math.min(offScreenPx, basis.viewportHeight)];
  if (position === 'relative' || isOutOfFlow || position === 'sticky') {
    const [left, top] = [length('left', basis.viewportWidth), length('top', basis.viewportHeight)];
    const [right, bottom] = [length('right', basis.viewportWidth), length('bottom', basis.viewportHeight)];
    if ((left ?? 0) <= -farX || (top ?? 0) <= -farY || (right ?? 0) >= farX || (bottom ?? 0) >= farY)
      return 'off-screen';
    if (isOutOfFlow || position === 'sticky') facts.overlay(`position: ${position}`);
    else if ([left, top, right, bottom].some((v) => Math.abs(v ?? 0) >= maxNudgePx))
      facts.overlay('position: relative');
    for (const side of ['left', 'top', 'right', 'bottom']) {
      const value = read(side);
      if (value !== undefined && !/^auto$/i.test(value) && length(side, basis.viewportWidth) === undefined)
        facts.doubt(side);
    }
  }
  const marginLeft = length('margin-left', basis.viewportWidth);
  // Vertical margins do not move an inline box (CSS 2 §10.6.1).
  const marginTop = boxDisplay === 'inline' ? undefined : length('margin-top', basis.viewportWidth);
  if ((marginLeft ?? 0) <= -farX || (marginTop ?? 0) <= -farY) return 'off-screen';
  // A negative margin pulls the box back over what came before it.
  if ((marginLeft ?? 0) <= -maxNudgePx) facts.overlay('margin-left');
  if ((marginTop ?? 0) <= -maxNudgePx) facts.overlay('margin-top');
  const clip = read('clip');
  if (clip !== undefined && !/^(auto|initial|inherit|unset)$/i.test(clip)) {
    const sides = clipRectSides(clip, basis);
    if (sides === undefined) facts.doubt('clip');
    else if (isOutOfFlow && isClipRectEmpty(sides)) return 'clipped';
  }
  return clipPathHiding(read('clip-path'), basis, facts.doubt);
}

/** The display of the element's box: absolute positioning and floats make an inline box a block (CSS 2 §9.7). */
export function boxDisplayOf(read: Read, display: string): string {
  const position = (read('position') ?? 'static').toLowerCase();
  const float = (read('float') ?? 'none').toLowerCase();
  const isOutOfFlow = position === 'absolute' || position === 'fixed';
  return (isOutOfFlow || (float !== 'none' && float !== 'initial')) && /^inline/.test(display) ? 'block' : display;
}

function isSizeKeywordOrPercent(value: string): boolean {
  // A percentage (alone or in calc()) is of a containing block the detector does not lay out: taken as room enough.
  return (
    /^(auto|none|initial|inherit|unset|revert|revert-layer|fit-content|max-content|min-content|-webkit-fill-available|-moz-available|stretch)$/i.test(
      value,
    ) || value.includes('%')
  );
}

/** How much `transform` and `scale` shrink the content (the smaller axis): scaled-down text is judged as tiny text. */
export function transformScale(read: Read, display: string): number {
  if (display === 'inline' || display === 'contents') return 1;
  let factor = 1;
  // A keyword (none, initial) is no number, so it leaves the factor as it is.
  const scale = read('scale');
  if (scale !== undefined) {
    const axes = splitComponents(scale).slice(0, 2).map(numberOf);
    if (axes.length > 0 && axes.every((a) => a !== undefined))
      factor *= Math.min(...axes.map((a) => Math.abs(a as number)));
  }
  const transform = read('transform');
  if (transform === undefined) return factor;
  for (const part of splitComponents(transform)) {
    const call = functionCall(part);
    if (!call) continue;
    const args = splitComponents(call.args)
      .filter((a) => a !== ',')
      .map(numberOf);
    if (call.name === 'scale' || call.name === 'scale3d')
      factor *= Math.min(...args.slice(0, 2).map((a) => Math.abs(a ?? 1)));
    else if (call.name === 'scalex' || call.name === 'scaley') factor *= Math.abs(args[0] ?? 1);
    else if (call.name === 'rotatex' || call.name === 'rotatey')
      factor *= Math.abs(Math.cos(((angleOf(call.args) ?? 0) * Math.PI) / 180));
    else if (call.name === 'matrix' && args.length === 6 && args.every((a) => a !== undefined)) {
      const [a, b, c, d] = args as number[];
      factor *= Math.sqrt(Math.abs((a as number) * (d as number) - (b as number) * (c as number)));
    }
  }
  return factor;
}

function numberOf(text: string): number | undefined {
  const value = Number.parseFloat(text);
  return Number.isFinite(value) ? (text.endsWith('%') ? value / 100 : value) : undefined;
}

/** An angle in degrees; undefined when it is not one. */
function angleOf(text: string): number | undefined {
  const units: Record<string, number> = { deg: 1, grad: 0.9, rad: 180 / Math.PI, turn: 360 };
  const match = /^\s*([+-]?(?:\d+\.?\d*|\.\d+))(deg|grad|rad|turn)?\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = match[2]?.toLowerCase();
  // Only a zero angle may go without its unit.
  if (unit === undefined) return Number(match[1]) === 0 ? 0 : undefined;
  return Number(match[1]) * (units[unit] ?? 1);
}

/** Whether an angle leaves (nearly) no width: within 3° of a quarter or three-quarter turn. */
function isEdgeOn(degrees: number): boolean {
  // Stryker disable next-line EqualityOperator: no angle's cosine is exactly 0.05.
  return Math.abs(Math.cos((degrees * Math.PI) / 180)) < 0.05;
}

/** Turned past a quarter turn the element shows its back: mirrored, or nothing with backface-visibility: hidden. */
function isTurnedAway(degrees: number): boolean {
  // Stryker disable next-line EqualityOperator: a cosine of exactly 0 is edge-on, caught before this is asked.
  return Math.cos((degrees * Math.PI) / 180) < 0;
}

// Transform functions that keep text in the plane, read below; anything else (matrix3d(), perspective(), rotate3d(), translateZ()) is named.
const planeTransforms =
  /^(translate|translatex|translatey|translate3d|scale|scalex|scaley|scale3d|matrix|rotate|rotatez|rotatex|rotatey|skew|skewx|skewy)$/;

function transformHiding(read: Read, basis: LengthBasis, facts: BoxFacts): HidingTechnique | undefined {
  const lengthOf = (text: string | undefined): number | undefined =>
    text === undefined ? undefined : resolveLength(text, { ...basis, percentOf: undefined });
  const far = (text: string): boolean => (lengthOf(text) ?? 0) <= -Math.min(offScreenPx, basis.viewportWidth);
  const shifted = (parts: string[]): void => {
    if (parts.some((p) => Math.abs(lengthOf(p) ?? 0) >= maxNudgePx || lengthOf(p) === undefined))
      facts.overlay('transform: translate');
  };
  const scale = read('scale');
  if (scale !== undefined && splitComponents(scale).some((part) => numberOf(part) === 0)) return 'scaled-to-zero';
  // A scale a browser computes (calc(), min()) is no number here, and could be zero.
  const isScaleKeyword = scale === undefined || /^none$/i.test(scale.trim()) || cssWideKeyword.test(scale.trim());
  if (!isScaleKeyword && !splitComponents(scale).every(isCssNumber)) facts.doubt('scale');
  const translate = read('translate');
  if (translate && !/^(none|initial|inherit|unset)$/i.test(translate)) {
    const parts = splitComponents(translate);
    if (parts.some(far)) return 'off-screen';
    shifted(parts.slice(0, 2));
    if (parts[2] !== undefined) facts.doubt('translate');
  }
  const rotate = read('rotate');
  if (rotate && !/^(none|initial|inherit|unset)$/i.test(rotate) && angleOf(rotate) === undefined) facts.doubt('rotate');
  const transform = read('transform');
  if (transform === undefined || /^(none|initial|inherit|unset)$/i.test(transform.trim())) return undefined;
  let isEdgeOnTurn = false;
  for (const part of splitComponents(transform)) {
    const call = functionCall(part);
    if (!call || !planeTransforms.test(call.name)) {
      facts.doubt(`transform: ${call?.name ?? part.slice(0, 20)}`);
      continue;
    }
    const args = splitComponents(call.args).filter((a) => a !== ',');
    // Only the names planeTransforms lists reach here, so a prefix tells them apart.
    if (call.name.startsWith('scale')) {
      // The depth of scale3d() does not flatten text drawn in the plane.
      const axes = args.slice(0, 2);
      if (axes.some((a) => numberOf(a) === 0)) return 'scaled-to-zero';
      if (!axes.every(isCssNumber)) facts.doubt(`transform: ${call.name}`);
    } else if (call.name.startsWith('translate')) {
      if (args.slice(0, 2).some(far)) return 'off-screen';
      shifted(args.slice(0, 2));
      if (call.name === 'translate3d' && lengthOf(args[2]) !== 0) facts.doubt('transform: translate3d');
    } else if (call.name === 'matrix' && args.length === 6) {
      // A value that is no number makes the determinant NaN, which is not zero: the browser drops such a matrix.
      const [a = NaN, b = NaN, c = NaN, d = NaN, e, f] = args.map(numberOf);
      if (a * d - b * c === 0) return 'scaled-to-zero';
      if (!args.every(isCssNumber)) facts.doubt('transform: matrix');
      if ((e ?? 0) <= -offScreenPx || (f ?? 0) <= -offScreenPx) return 'off-screen';
      if (Math.abs(e ?? 0) >= maxNudgePx || Math.abs(f ?? 0) >= maxNudgePx) facts.overlay('transform: matrix');
    } else if (call.name.startsWith('skew')) {
      const angles = args.map(angleOf);
      if (angles.some((a) => a === undefined)) facts.doubt('transform: skew');
      // A skew of a quarter turn stretches the text into a line of no width.
      else if (angles.some((a) => isEdgeOn(a as number))) return 'scaled-to-zero';
    } else if (call.name === 'rotatex' || call.name === 'rotatey') {
      const angle = angleOf(call.args);
      if (angle === undefined) facts.doubt(`transform: ${call.name}`);
      else if (isEdgeOn(angle)) isEdgeOnTurn = true;
      else if (isTurnedAway(angle)) facts.doubt(`transform: ${call.name}`);
    } else if (call.name.startsWith('rotate')) {
      if (angleOf(call.args) === undefined) facts.doubt(`transform: ${call.name}`);
    }
  }
  return isEdgeOnTurn ? 'scaled-to-zero' : undefined;
}

type ClipSides = [number | undefined, number | undefined, number | undefined, number | undefined];

/** The sides of `clip: rect(…)` (CSS 2 §11.1.2) in px, `auto` undefined; undefined when the value is unreadable. */
function clipRectSides(value: string, basis: LengthBasis): ClipSides | undefined {
  const call = functionCall(value.trim());
  if (call?.name !== 'rect') return undefined;
  const sides = splitComponents(call.args).filter((a) => a !== ',');
  const px = sides.map((side) => resolveLength(side, { ...basis, percentOf: undefined }));
  if (sides.length !== 4 || sides.some((side, i) => px[i] === undefined && !/^auto$/i.test(side))) return undefined;
  return px as ClipSides;
}

/** Whether a clip rect leaves less than a sliver; an `auto` side does not clip. */
function isClipRectEmpty([top, right, bottom, left]: ClipSides): boolean {
  const extent = (from: number | undefined, to: number | undefined): number => (to ?? Infinity) - (from ?? -Infinity);
  return extent(top, bottom) < minVisibleBoxPx || extent(left, right) < minVisibleBoxPx;
}

/** clip-path shapes are measured (nothing kept: clipped; most of the box: shown); any other clip is named. */
function clipPathHiding(
  value: string | undefined,
  basis: LengthBasis,
  doubt: (reason: string) => void,
): HidingTechnique | undefined {
  if (value === undefined || /^(none|initial|inherit|unset|revert|revert-layer)$/i.test(value.trim())) return undefined;
  const call = functionCall(value.trim());
  const px = (v: string | undefined): number | undefined =>
    v === undefined ? undefined : resolveLength(v, { ...basis, percentOf: undefined });
  const percent = (v: string | undefined): number | undefined =>
    /^[+-]?(\d+\.?\d*|\.\d+)%$/.test(String(v)) ? Number.parseFloat(String(v)) : undefined;
  if (!call) {
    doubt('clip-path');
    return undefined;
  }
  const args = splitComponents(call.args).filter((a) => a !== ',');
  if (call.name === 'circle' || call.name === 'ellipse') {
    const radii = args
      .slice(0, Math.max(0, args.indexOf('at') === -1 ? args.length : args.indexOf('at')))
      .slice(0, call.name === 'circle' ? 1 : 2);
    // A radius of 0% resolves to 0px.
    if (radii.some((r) => (px(r) ?? Infinity) < minVisibleBoxPx / 2)) return 'clipped';
    if (
      radii.every(
        (r) =>
          (percent(r) ?? 0) >= 50 || /^(closest-side|farthest-side)$/i.test(r) || (px(r) ?? 0) >= basis.viewportWidth,
      )
    )
      return undefined;
    doubt(`clip-path: ${call.name}`);
    return undefined;
  }
  if (call.name === 'inset') {
    const round = args.indexOf('round');
    const [top, right = top, bottom = top, left = right] = round === -1 ? args : args.slice(0, round);
    // Two insets in different units (or not read) add up to NaN, which passes no test below: named.
    const sum = (a: string | undefined, b: string | undefined): { percent: number; px: number } => ({
      percent: (percent(a) ?? NaN) + (percent(b) ?? NaN),
      px: (px(a) ?? NaN) + (px(b) ?? NaN),
    });
    const [vertical, horizontal] = [sum(top, bottom), sum(left, right)];
    if (vertical.percent >= 100 || horizontal.percent >= 100 || horizontal.px >= basis.viewportWidth) return 'clipped';
    // Small insets trim a border; more than a quarter of the box may cut lines of text away.
    if ([vertical, horizontal].every((s) => s.percent <= 25 || s.px <= 2 * maxNudgePx)) return undefined;
    doubt('clip-path: inset');
    return undefined;
  }
  if (call.name === 'polygon') {
    const points = splitComponents(call.args)
      .join(' ')
      .split(',')
      .map((point) =>
        point
          .trim()
          .split(' ')
          .filter((p) => !/^(nonzero|evenodd)$/i.test(p)),
      )
      .filter((point) => point.length > 0);
    // Coordinates in one unit (all % or all px) are compared; an area of (nearly) nothing keeps nothing.
    // A coordinate that cannot be read makes the area NaN, which passes no test below: named.
    const coordinates = points.map((point) => point.map((c) => percent(c) ?? px(c) ?? NaN));
    if (points.every((p) => p.length === 2)) {
      const xy = coordinates as [number, number][];
      let area = 0;
      xy.forEach(([x1, y1], i) => {
        const [x2, y2] = xy[(i + 1) % xy.length] as [number, number];
        // Stryker disable next-line AssignmentOperator: the area is taken unsigned, so the orientation does not count.
        area += x1 * y2 - x2 * y1;
      });
      if (Math.abs(area) / 2 < 1) return 'clipped';
      const isWholeBox =
        points.flat().every((c) => percent(c) !== undefined || px(c) === 0) && Math.abs(area) / 2 >= 100 * 100 * 0.95;
      if (isWholeBox) return undefined;
    }
    doubt('clip-path: polygon');
    return undefined;
  }
  doubt(`clip-path: ${call.name}`);
  return undefined;
}
