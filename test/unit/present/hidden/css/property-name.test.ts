import { describe, expect, it } from 'vitest';
import { decodeEscapes, normalisePropertyName } from '../../../../../src/present/hidden/css/property-name.js';

describe('property names as a browser reads them', () => {
  it.each<[string, string]>([
    ['display', 'display'],
    ['DISPLAY', 'display'],
    ['dis\\play', 'display'],
    ['dis\\70 lay', 'display'],
    ['dis\\70lay', 'display'],
    ['dis\\000070lay', 'display'],
    ['\\64 isplay', 'display'],
    ['\\44 ISPLAY', 'display'],
    ['dis\\70\tlay', 'display'],
    ['dis\\70\nlay', 'display'],
    ['dis\\70  lay', 'disp lay'],
    ['margin-inline-start', 'margin-left'],
    ['Margin-Inline-Start', 'margin-left'],
    ['margin-block-start', 'margin-top'],
    ['margin-inline-end', 'margin-right'],
    ['margin-block-end', 'margin-bottom'],
    ['inset-inline-start', 'left'],
    ['inset-inline-end', 'right'],
    ['inset-block-start', 'top'],
    ['inset-block-end', 'bottom'],
    ['inline-size', 'width'],
    ['block-size', 'height'],
    ['max-inline-size', 'max-width'],
    ['max-block-size', 'max-height'],
    ['min-inline-size', 'min-width'],
    ['min-block-size', 'min-height'],
    ['overflow-inline', 'overflow-x'],
    ['overflow-block', 'overflow-y'],
    ['padding-inline-start', 'padding-left'],
    ['padding-inline-end', 'padding-right'],
    ['padding-block-start', 'padding-top'],
    ['padding-block-end', 'padding-bottom'],
    ['block-\\73ize', 'height'],
    ['--Brand', '--Brand'],
    ['--Br\\61nd', '--Brand'],
    ['-\\-x', '--x'],
  ])('reads %j as %j', (raw, name) => {
    expect(normalisePropertyName(raw)).toBe(name);
  });

  it.each<[string, string]>([
    ['\\0', '\uFFFD'],
    ['\\110000', '\uFFFD'],
    ['\\d800', '\uFFFD'],
    ['\\dfff', '\uFFFD'],
    ['\\d7ff', '\uD7FF'],
    ['\\e000', '\uE000'],
    ['\\10ffff', '\u{10FFFF}'],
    ['\\1234567', '\uFFFD7'],
    ['\\10abcd7', '\u{10ABCD}7'],
    ['a\\\nb', 'a\\\nb'],
    ['a\\\\b', 'a\\b'],
    ['\\g', 'g'],
    ['\\Ab', '\u00AB'],
  ])('decodes %j as %j', (raw, decoded) => {
    expect(decodeEscapes(raw)).toBe(decoded);
  });
});
