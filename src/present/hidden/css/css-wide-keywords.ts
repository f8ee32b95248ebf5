/** CSS-wide keywords (CSS Cascade 5 §7.3), which any property accepts. */
export const cssWideKeyword = /^(inherit|initial|unset|revert|revert-layer)$/i;

/**
 * Whether an inherited property takes its parent's value: when not declared, or declared
 * `inherit`, `unset` or `revert` (the user-agent styles set none of the properties read this way).
 */
export function takesParentValue(value: string | undefined): boolean {
  return value === undefined || /^(inherit|unset|revert|revert-layer)$/i.test(value);
}
