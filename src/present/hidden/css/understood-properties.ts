import { words } from '../word-list.js';

/**
 * Which properties the detector understands. Text counts as visible only when every property
 * that styles it is one of these: an evaluated property is read and judged (its value can still
 * be one the detector cannot judge, which it then names), an inert one cannot hide text by the
 * detector's model of the page (typography, padding, borders, table layout). Anything else, such
 * as `mask-image`, `backdrop-filter`, `animation` or `content`, is a technique the detector does
 * not know, and the message is marked as styled in a way it cannot assess.
 */

/** Properties whose values computeRenderState and boxHiding read. */
export const evaluatedProperties: ReadonlySet<string> = new Set(
  words`display visibility opacity font-size color background-color background-image fill -webkit-text-fill-color
  text-shadow -webkit-text-stroke-width filter mix-blend-mode background-clip -webkit-background-clip zoom transform
  scale translate rotate text-indent position top right bottom left float margin-top margin-left overflow-x overflow-y
  width height max-width max-height clip clip-path content-visibility line-height letter-spacing white-space mso-hide
  backface-visibility -webkit-text-stroke-color`,
);

// A prefixed form of an inert property (-webkit-box-shadow) is understood by isUnderstoodProperty, not listed.
const inertNames = [
  // Typography that changes glyphs' shape or weight, not whether they show.
  ...words`font-family font-weight font-style font-variant font-variant-ligatures font-variant-caps
  font-variant-numeric font-variant-east-asian font-variant-position font-stretch font-feature-settings font-kerning
  font-synthesis font-optical-sizing font-variation-settings font-size-adjust text-align text-align-last text-justify
  text-decoration text-decoration-line text-decoration-color text-decoration-style text-decoration-thickness
  text-decoration-skip-ink text-underline-offset text-underline-position text-transform text-rendering text-size-adjust
  -moz-osx-font-smoothing font-smoothing word-spacing word-break word-wrap overflow-wrap hyphens line-break tab-size
  text-wrap white-space-collapse text-wrap-mode vertical-align direction unicode-bidi quotes -webkit-locale
  font-display`,
  // The box's edges, drawn behind the content of in-flow boxes.
  ...words`padding padding-top padding-right padding-bottom padding-left margin margin-right margin-bottom border
  border-top border-right border-bottom border-left border-width border-style border-color border-top-width
  border-right-width border-bottom-width border-left-width border-top-style border-right-style border-bottom-style
  border-left-style border-top-color border-right-color border-bottom-color border-left-color border-radius
  border-top-left-radius border-top-right-radius border-bottom-left-radius border-bottom-right-radius border-collapse
  border-spacing border-image outline outline-width outline-style outline-color outline-offset box-shadow box-sizing
  min-width min-height clear background-repeat background-position background-position-x background-position-y
  background-size background-origin background-attachment background-blend-mode`,
  // Tables, lists, flex layout in one flow (no overlap), replaced content.
  ...words`table-layout caption-side empty-cells list-style list-style-type list-style-position list-style-image flex
  flex-direction flex-wrap flex-flow flex-grow flex-shrink flex-basis justify-content align-items align-content
  align-self justify-items justify-self gap row-gap column-gap order object-fit object-position image-rendering
  -ms-interpolation-mode aspect-ratio text-overflow place-items place-content place-self counter-reset
  counter-increment shape-outside overscroll-behavior scrollbar-width scrollbar-color`,
  // Interaction, motion that does not start on its own, and hints.
  ...words`cursor pointer-events user-select -webkit-tap-highlight-color appearance resize transition
  transition-property transition-duration transition-timing-function transition-delay will-change isolation z-index
  accent-color caret-color scroll-behavior touch-action transform-origin color-scheme supported-color-schemes
  forced-color-adjust print-color-adjust orphans widows page-break-before page-break-after page-break-inside
  break-before break-after break-inside speak src unicode-range page size nbsp-mode box-orient`,
];

export const inertProperties: ReadonlySet<string> = new Set(inertNames);

/**
 * Whether the detector understands `property` at all. Outlook's `mso-` properties only act in
 * Word's renderer and style no other client; `mso-hide` is the one that hides and is evaluated.
 */
export function isUnderstoodProperty(property: string): boolean {
  if (property.startsWith('--') || evaluatedProperties.has(property) || inertProperties.has(property)) return true;
  if (property.startsWith('mso-')) return true;
  // A prefixed form of an inert property (-moz-hyphens, -ms-user-select) is as inert; -webkit-mask is not.
  const prefix = /^-(?:webkit|moz|ms|o)-/.exec(property)?.[0];
  return prefix !== undefined && inertProperties.has(property.slice(prefix.length));
}
