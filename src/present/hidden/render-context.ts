/**
 * The screens a mail is judged on. A rule inside `@media (max-width: 600px)` hides text on phones
 * only, and responsive mail shows a desktop block or a phone block of the same content; text
 * counts as visible when a person sees it on at least one of these, and as hidden only when it is
 * hidden on all of them. The phone is in dark mode and the desktop in light mode, so that rules
 * under either `prefers-color-scheme` are weighed.
 */
export interface RenderContext {
  name: 'desktop' | 'phone';
  width: number;
  height: number;
  isDark: boolean;
  /** Device pixels per CSS px. */
  pixelRatio: number;
  canHover: boolean;
}

export const renderContexts: readonly RenderContext[] = [
  { name: 'desktop', width: 1024, height: 768, isDark: false, pixelRatio: 1, canHover: true },
  { name: 'phone', width: 375, height: 812, isDark: true, pixelRatio: 3, canHover: false },
];

/** Bit mask of every context: a rule outside any `@media` applies in all of them. */
export const allContexts = (1 << renderContexts.length) - 1;
