import { describe, expect, it } from 'vitest';
import { matchesMedia } from '../../../../../src/present/hidden/css/matches-media.js';
import { renderContexts } from '../../../../../src/present/hidden/render-context.js';

const [desktop, phone] = renderContexts as [(typeof renderContexts)[0], (typeof renderContexts)[0]];
const on = (query: string): [boolean, boolean] => [matchesMedia(query, desktop), matchesMedia(query, phone)];

describe('media queries on the desktop and the phone', () => {
  it.each<[string, [boolean, boolean]]>([
    ['', [true, true]],
    ['all', [true, true]],
    ['screen', [true, true]],
    ['print', [false, false]],
    ['not print', [true, true]],
    ['not screen', [false, false]],
    ['only screen and (max-width: 600px)', [false, true]],
    ['screen and (min-width:601px)', [true, false]],
    ['(max-device-width: 480px)', [false, true]],
    ['(width <= 600px)', [false, true]],
    ['(400px < width < 1100px)', [true, false]],
    ['(orientation: portrait)', [false, true]],
    ['(prefers-color-scheme: dark)', [false, true]],
    ['(-webkit-min-device-pixel-ratio: 2)', [false, true]],
    ['(min-resolution: 192dpi)', [false, true]],
    ['(hover: hover)', [true, false]],
    ['(max-width: 37.5em)', [false, true]],
    ['print, (max-width: 600px)', [false, true]],
    ['not (max-width: 600px)', [true, false]],
    ['(min-width: 1px) and (max-width: 1px)', [false, false]],
    ['(min-width: 1px) or (unknown-feature)', [true, true]],
    ['(unknown-feature)', [false, false]],
    ['screen and', [false, false]],
    ['tv', [false, false]],
    ['(scripting: none)', [true, true]],
  ])('evaluates "%s"', (query, expected) => {
    expect(on(query)).toEqual(expected);
  });
});
