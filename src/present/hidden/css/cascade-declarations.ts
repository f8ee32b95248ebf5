import { shorthandLonghands } from './css-shorthands.js';
import type { RuleMatch } from './match-style-rules.js';
import type { CssDeclaration } from './parse-declarations.js';
import type { UserAgentDeclaration } from './user-agent-style.js';

/** The winning declaration per longhand; one set by a shorthand maps to the shorthand's declaration. */
export type Cascaded = ReadonlyMap<string, UserAgentDeclaration>;

/** Everything that can style one element, gathered once and cascaded per render context. */
export interface ElementDeclarations {
  userAgent: UserAgentDeclaration[];
  hints: CssDeclaration[];
  rules: RuleMatch[];
  inline: CssDeclaration[];
}

/**
 * CSS Cascade 5 §6 for one element in one context, applied from the weakest: user agent, presentational
 * hints (HTML §15.1), author rules by specificity then order, the style attribute; then the !important ones.
 */
export function cascadeDeclarations(source: ElementDeclarations, contextBit: number): Cascaded {
  const cascaded = new Map<string, UserAgentDeclaration>();
  const apply = (declaration: UserAgentDeclaration): void => {
    // Own keys only: a declaration `constructor: x` is a property of its own, not Object's function.
    const longhands = Object.hasOwn(shorthandLonghands, declaration.property)
      ? shorthandLonghands[declaration.property]
      : undefined;
    if (longhands) for (const longhand of longhands) cascaded.set(longhand, declaration);
    else cascaded.set(declaration.property, declaration);
  };
  const rules = source.rules
    .filter((match) => (match.rule.contexts & contextBit) !== 0)
    .sort((a, b) => a.specificity - b.specificity || a.rule.order - b.rule.order);
  for (const isImportant of [false, true]) {
    if (!isImportant) {
      for (const declaration of source.userAgent) apply(declaration);
      for (const declaration of source.hints) apply(declaration);
    }
    for (const { rule } of rules)
      for (const declaration of rule.declarations) if (declaration.isImportant === isImportant) apply(declaration);
    for (const declaration of source.inline) if (declaration.isImportant === isImportant) apply(declaration);
  }
  return cascaded;
}
