import type { Cascaded } from './cascade-declarations.js';
import type { RenderState } from '../compute-render-state.js';
import { ObjectIds, remember } from '../object-ids.js';
import { parseDeclarations, type CssDeclaration } from './parse-declarations.js';

/**
 * Results one analysis reuses: mail repeats the same style attribute and the same rules on every
 * row of a layout table, so equal inputs get the same parsed declarations, the same cascade and
 * (under the same parent state) the same state object. Lives for one analysis only.
 */
export class StyleMemo extends ObjectIds {
  private readonly inline = new Map<string, CssDeclaration[]>();
  private readonly cascades = new Map<string, Cascaded>();
  private readonly states = new WeakMap<RenderState, Map<string, RenderState>>();

  /** The declarations of a style attribute, parsed once per distinct text. */
  declarationsOf(style: string): CssDeclaration[] {
    return remember(this.inline, style, () => parseDeclarations(style));
  }

  /** The cascade for `key`, computed by `compute` the first time. */
  cascade(key: string, compute: () => Cascaded): Cascaded {
    return remember(this.cascades, key, compute);
  }

  /** The state for an element under `parent`, computed by `compute` the first time for `key`. */
  state(parent: RenderState, key: string, compute: () => RenderState): RenderState {
    return remember(
      remember(this.states, parent, () => new Map<string, RenderState>()),
      key,
      compute,
    );
  }
}
