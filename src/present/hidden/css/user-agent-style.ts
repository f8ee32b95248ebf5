import type { Element } from 'domhandler';
import type { HidingTechnique } from '../hiding-technique.js';
import type { CssDeclaration } from './parse-declarations.js';
import { parseLegacyColour } from '../colour/parse-legacy-colour.js';
import { words } from '../word-list.js';

/** A declaration from the browser's own style sheet, with the technique to name if it hides text. */
export interface UserAgentDeclaration extends CssDeclaration {
  technique?: HidingTechnique;
}

// HTML §15.3 (rendering): elements whose box is a block, a table part or an inline-block by default.
const blockElements = new Set(
  words`html body address article aside blockquote center details dialog dd div dl dt fieldset figcaption figure footer
  form h1 h2 h3 h4 h5 h6 header hgroup hr legend listing main menu nav ol p plaintext pre search section summary ul
  xmp`,
);
// A Map: a <constructor> element is an unknown element, inline.
const defaultDisplays: ReadonlyMap<string, string> = new Map([
  ['li', 'list-item'],
  ['table', 'table'],
  ['caption', 'table-caption'],
  ['colgroup', 'table-column-group'],
  ['col', 'table-column'],
  ['thead', 'table-header-group'],
  ['tbody', 'table-row-group'],
  ['tfoot', 'table-footer-group'],
  ['tr', 'table-row'],
  ['td', 'table-cell'],
  ['th', 'table-cell'],
  ...words`img button input select textarea marquee`.map((name) => [name, 'inline-block'] as const),
  // Never rendered; the head's own text is (browsers move stray text out of it), so it is not here.
  ...words`area base basefont link meta param rp script style`.map((name) => [name, 'none'] as const),
]);

/** The display an element has before any author style (HTML §15.3). */
export function defaultDisplay(name: string): string {
  return defaultDisplays.get(name) ?? (blockElements.has(name) ? 'block' : 'inline');
}

/** Elements whose content a browser never draws. Not <noscript>: mail is rendered with scripts off. */
export const notRenderedElements = new Set(['template', 'iframe', 'noembed', 'noframes', 'datalist']);

/** Elements whose fallback content shows or not depending on what the reader's client supports: not assessed. */
export const unassessedFallbackElements = new Set(['canvas', 'video', 'audio', 'object', 'embed', 'applet']);

/** The user-agent rules of HTML §15.3 that bear on visibility, for one element. */
export function userAgentDeclarations(element: Element, isQuirks: boolean): UserAgentDeclaration[] {
  const declarations: UserAgentDeclaration[] = [];
  const { name, attribs } = element;
  const add = (property: string, value: string, technique?: HidingTechnique): void => {
    declarations.push({ property, value, isImportant: false, ...(technique ? { technique } : {}) });
  };
  if (attribs.hidden !== undefined) {
    if (attribs.hidden.toLowerCase() === 'until-found') add('content-visibility', 'hidden', 'hidden-attribute');
    else add('display', 'none', 'hidden-attribute');
  }
  if (name === 'dialog' && attribs.open === undefined) add('display', 'none');
  if ((name === 'a' || name === 'area') && attribs.href !== undefined) add('color', '#0000ee');
  if (name === 'mark') {
    add('background-color', 'yellow');
    add('color', 'black');
  }
  // Quirks mode (no doctype, common in mail) does not inherit the font size into tables (HTML §15.3.4).
  if (isQuirks && name === 'table') add('font-size', 'medium');
  return declarations;
}

const bgcolorElements = new Set(['body', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th', 'marquee']);
const backgroundElements = new Set(['body', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th']);

// SVG 2 §6.6 presentation attributes that bear on visibility: `<text display="none">` hides as CSS does.
const svgPresentationAttributes = words`display visibility opacity font-size fill color transform clip-path`;

/** Presentational attributes as the declarations they map to (HTML §15.3 "presentational hints", SVG 2 §6.6). */
export function presentationalHints(element: Element, isSvg: boolean): CssDeclaration[] {
  const hints: CssDeclaration[] = [];
  const { name, attribs } = element;
  if (isSvg) {
    for (const attribute of svgPresentationAttributes) {
      const value = attribs[attribute]?.trim();
      if (value) hints.push({ property: attribute, value, isImportant: false });
    }
    return hints;
  }
  const colour = (attribute: string | undefined, property: string): void => {
    const parsed = attribute === undefined ? undefined : parseLegacyColour(attribute);
    if (parsed) hints.push({ property, value: `rgb(${parsed.r} ${parsed.g} ${parsed.b})`, isImportant: false });
  };
  if (bgcolorElements.has(name)) colour(attribs.bgcolor, 'background-color');
  if (backgroundElements.has(name) && attribs.background?.trim())
    hints.push({ property: 'background-image', value: 'url(attribute)', isImportant: false });
  if (name === 'font') colour(attribs.color, 'color');
  if (name === 'body') colour(attribs.text, 'color');
  return hints;
}
