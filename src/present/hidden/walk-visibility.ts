import { isTag, type AnyNode, type Comment, type Document, type Element, type Text } from 'domhandler';
import { stripInvisibleControls } from '../fence-untrusted.js';
import { cascadeDeclarations, type Cascaded, type ElementDeclarations } from './css/cascade-declarations.js';
import {
  computeRenderState,
  isClosedDetails,
  rootRenderState,
  textDoubt,
  textHiding,
  type RenderState,
  type StyleEnvironment,
} from './compute-render-state.js';
import type { HidingTechnique } from './hiding-technique.js';
import type { StyleRuleMatcher } from './css/match-style-rules.js';
import { allContexts, renderContexts } from './render-context.js';
import { TextBuilder } from './text-builder.js';
import {
  defaultDisplay,
  presentationalHints,
  userAgentDeclarations,
  type UserAgentDeclaration,
} from './css/user-agent-style.js';

/** What one pass over the document found. */
export interface VisibilityWalk {
  visibleText: string;
  hiddenText: string;
  /** Non-whitespace characters hidden, per technique. */
  charsByTechnique: Map<HidingTechnique, number>;
  /** Characters inside <script>: code no mail client runs or shows. */
  scriptChars: number;
  /** Nodes a person does not see: leave them out of the visible HTML. */
  hidden: Set<AnyNode>;
  /** Elements whose text is hidden where they stand (colour, size, visibility), though their box is there. */
  textHidden: Set<Element>;
  /** Styling the detector cannot assess that bears on text a person may see, in document order. */
  unassessed: Set<string>;
}

type Frame = { node: AnyNode; states: RenderState[] } | { leave: Element };

const isBlockish = (display: string): boolean => !/^(inline|contents|ruby)/.test(display);

/** Walks the document once: text is visible when seen in any render context; a subtree hidden in all is taken whole. */
export function walkVisibility(
  document: Document,
  matcher: StyleRuleMatcher,
  environment: StyleEnvironment,
): VisibilityWalk {
  const visible = new TextBuilder();
  const hiddenBuilder = new TextBuilder();
  const result: Omit<VisibilityWalk, 'visibleText' | 'hiddenText'> = {
    charsByTechnique: new Map(),
    scriptChars: 0,
    hidden: new Set(),
    textHidden: new Set(),
    unassessed: new Set(),
  };
  const count = (technique: HidingTechnique, chars: number): void => {
    result.charsByTechnique.set(technique, (result.charsByTechnique.get(technique) ?? 0) + chars);
  };
  // Distinct unassessed stylings kept: enough to name what to look at, bounded against a flood.
  const noteUnassessed = (reason: string): void => {
    if (result.unassessed.size < 8) result.unassessed.add(reason);
  };
  let lastTechnique: HidingTechnique | undefined;
  const addHidden = (text: string, technique: HidingTechnique): void => {
    if (technique !== lastTechnique) hiddenBuilder.breakLine();
    const appended = hiddenBuilder.append(stripInvisibleControls(text));
    if (appended === '') return;
    lastTechnique = technique;
    count(technique, appended.replace(/\s/g, '').length);
  };
  const addVisible = (node: Text): void => {
    const clean = stripInvisibleControls(node.data);
    const removed = node.data.length - clean.length;
    if (removed > 0) {
      count('invisible-characters', removed);
      node.data = clean;
    }
    const shown = visible.append(clean);
    if (lastTechnique === undefined) return;
    // Visible white space between two hidden runs keeps their words apart; visible text ends the run.
    if (shown === '') hiddenBuilder.append(clean);
    else {
      hiddenBuilder.breakLine();
      lastTechnique = undefined;
    }
  };
  const takeSubtree = (root: Element, technique: HidingTechnique): void => {
    const stack: (AnyNode | 'break')[] = [root];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (node === 'break') hiddenBuilder.breakLine();
      else if (node.type === 'text') addHidden((node as Text).data, technique);
      else if (node.type === 'comment') takeComment(node as Comment);
      else if (node.type === 'tag') {
        const element = node as Element;
        if (element.name === 'br' || isBlockish(defaultDisplay(element.name))) stack.push('break');
        for (let i = element.children.length - 1; i >= 0; i--) stack.push(element.children[i] as AnyNode);
        if (isBlockish(defaultDisplay(element.name))) stack.push('break');
      } else if (node.type === 'script') result.scriptChars += scriptLength(node as Element);
    }
  };
  const takeComment = (comment: Comment): void => {
    result.hidden.add(comment);
    // Outlook's conditional comments carry markup Outlook shows; other readers skip it as markup.
    if (/^\s*\[if\b|^\s*<!\[endif\]|^\s*\[endif\]/i.test(comment.data)) return;
    addHidden(comment.data, 'comment');
  };

  // Text judged visible counts as such only where nothing about its styling is beyond the detector.
  const noteDoubt = (states: RenderState[], techniques: (HidingTechnique | undefined)[]): void => {
    states.forEach((state, i) => {
      const doubt = techniques[i] === undefined ? textDoubt(state) : undefined;
      if (doubt !== undefined) noteUnassessed(doubt);
    });
  };

  // Text in a box of fixed height that clips its overflow, counted per box: past what the box shows, some of it is cut off.
  const clipped = new Map<object, number>();
  const noteClipped = (states: RenderState[], techniques: (HidingTechnique | undefined)[], text: string): void => {
    const chars = text.replace(/\s/g, '').length;
    states.forEach((state, i) => {
      if (!state.clip || techniques[i] !== undefined) return;
      const total = (clipped.get(state.clip) ?? 0) + chars;
      clipped.set(state.clip, total);
      if (total > state.clip.capacity) noteUnassessed('height with overflow hidden (text may be cut off)');
    });
  };

  const stack: Frame[] = [];
  const rootStates = renderContexts.map(() => rootRenderState());
  for (let i = document.children.length - 1; i >= 0; i--)
    stack.push({ node: document.children[i] as AnyNode, states: rootStates });
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    if ('leave' in frame) {
      visible.breakLine();
      hiddenBuilder.breakLine();
      continue;
    }
    const { node, states } = frame;
    if (node.type === 'text') {
      const parent = node.parent;
      const techniques = states.map(textHiding);
      const technique = isClosedDetails(parent)
        ? 'closed-details'
        : techniques.every(Boolean)
          ? techniques[0]
          : undefined;
      if (technique) {
        result.hidden.add(node);
        addHidden((node as Text).data, technique);
      } else {
        addVisible(node as Text);
        if ((node as Text).data.trim() !== '') {
          noteDoubt(states, techniques);
          noteClipped(states, techniques, (node as Text).data);
        }
      }
      continue;
    }
    if (node.type === 'comment') {
      takeComment(node as Comment);
      continue;
    }
    if (!isTag(node)) continue;
    if (node.type === 'script' || node.type === 'style') {
      result.hidden.add(node);
      if (node.type === 'script') result.scriptChars += scriptLength(node);
      continue;
    }
    const own = stylesOf(
      node,
      matcher,
      environment,
      // <foreignObject> is an SVG element and takes presentation attributes; its children are HTML.
      node.name === 'svg' || (states[0] as RenderState).isSvg,
    );
    // A state depends on the element only through its name, except under a closed <details> and in SVG (positions are attributes).
    const canShare = !isClosedDetails(node.parent) && node.name !== 'svg' && !(states[0] as RenderState).isSvg;
    const ownStates = renderContexts.map((context, i) => {
      const parent = states[i] as RenderState;
      const cascaded = own(1 << i);
      const compute = (): RenderState => computeRenderState(node, parent, cascaded, context, environment);
      return canShare
        ? environment.memo.state(parent, `${i} ${node.name} ${environment.memo.idOf(cascaded)}`, compute)
        : compute();
    });
    // States are shared between elements styled alike; a clipping box counts its own text, so it gets its own.
    ownStates.forEach((s, i) => {
      if (s.clip && s.clip !== (states[i] as RenderState).clip)
        ownStates[i] = { ...s, clip: { capacity: s.clip.capacity } };
    });
    const subtreeHidden = ownStates.map((s) => s.hiddenBy);
    ownStates.forEach((s) => {
      if (s.overlay !== undefined && s.hiddenBy === undefined)
        noteUnassessed(`${s.overlay} (a box that may lie over other text)`);
    });
    if (subtreeHidden.every(Boolean)) {
      result.hidden.add(node);
      takeSubtree(node, subtreeHidden[0] as HidingTechnique);
      continue;
    }
    if (ownStates.every((s) => textHiding(s) !== undefined)) result.textHidden.add(node);
    const isBlock = node.name === 'br' || isBlockish((ownStates[0] as RenderState).display);
    if (isBlock) {
      visible.breakLine();
      hiddenBuilder.breakLine();
      stack.push({ leave: node });
    }
    for (let i = node.children.length - 1; i >= 0; i--)
      stack.push({ node: node.children[i] as AnyNode, states: ownStates });
  }
  return { ...result, visibleText: visible.toString(), hiddenText: hiddenBuilder.toString() };
}

const noDeclarations: Cascaded = new Map();

/** Gathers what styles `element` once; returns its cascade per context bit, shared by equal sources and contexts. */
function stylesOf(
  element: Element,
  matcher: StyleRuleMatcher,
  environment: StyleEnvironment,
  isSvg: boolean,
): (contextBit: number) => Cascaded {
  const { memo } = environment;
  const source: ElementDeclarations = {
    userAgent: userAgentDeclarations(element, environment.isQuirks),
    hints: presentationalHints(element, isSvg),
    rules: matcher.match(element),
    inline: element.attribs.style ? memo.declarationsOf(element.attribs.style) : [],
  };
  if (source.userAgent.length + source.hints.length + source.rules.length + source.inline.length === 0)
    return () => noDeclarations;
  const shown = (declarations: UserAgentDeclaration[]): string =>
    declarations.map((d) => `${d.property}:${d.value}:${d.technique ?? ''}`).join(';');
  // A rule's source order is unique in one analysis, so it names the rule.
  const rules = source.rules.map((m) => `${m.rule.order}@${m.specificity}`).sort();
  const key = `${shown(source.userAgent)}|${shown(source.hints)}|${rules.join(',')}|${element.attribs.style ?? ''}`;
  const isUniform = source.rules.every((match) => match.rule.contexts === allContexts);
  return (contextBit) => {
    const bit = isUniform ? allContexts : contextBit;
    return memo.cascade(`${bit}|${key}`, () => cascadeDeclarations(source, bit));
  };
}

function scriptLength(script: Element): number {
  return script.children.reduce((sum, child) => sum + (child.type === 'text' ? (child as Text).data.length : 0), 0);
}
