/**
 * The ways mail text is kept from a person's eyes, as the visibility report names them. Names are
 * neutral on purpose: marketing mail hides a preview line by several of these every day.
 */
export const hidingTechniques = [
  'display:none',
  'hidden-attribute',
  'visibility:hidden',
  'opacity:0',
  'font-size:0',
  'zero-size-box',
  'color-matches-background',
  'off-screen',
  'clipped',
  'scaled-to-zero',
  'blurred',
  'letters-overlapped',
  'content-visibility:hidden',
  'closed-details',
  'not-rendered',
  'title',
  'comment',
  'invisible-characters',
] as const;

export type HidingTechnique = (typeof hidingTechniques)[number];
