import { describe, expect, it, vi } from 'vitest';
import type { HidingTechnique } from '../../../../src/present/hidden/hiding-technique.js';
import { see } from './see-html.js';

describe('each hiding technique, named in the report', () => {
  it.each<[HidingTechnique, string]>([
    ['display:none', '<p style="display:none">secret words</p>'],
    ['hidden-attribute', '<p hidden>secret words</p>'],
    ['visibility:hidden', '<p style="visibility:hidden">secret words</p>'],
    ['opacity:0', '<p style="opacity:0">secret words</p>'],
    ['font-size:0', '<p style="font-size:0">secret words</p>'],
    ['zero-size-box', '<div style="height:0;overflow:hidden"><p>secret words</p></div>'],
    ['color-matches-background', '<p style="color:#fff">secret words</p>'],
    ['off-screen', '<p style="position:absolute;left:-9999px">secret words</p>'],
    ['clipped', '<p style="position:absolute;clip:rect(0,0,0,0)">secret words</p>'],
    ['scaled-to-zero', '<p style="transform:scale(0)">secret words</p>'],
    ['blurred', '<p style="filter:blur(20px)">secret words</p>'],
    ['letters-overlapped', '<p style="letter-spacing:-20px">secret words</p>'],
    ['content-visibility:hidden', '<p style="content-visibility:hidden">secret words</p>'],
    ['closed-details', '<details><summary>Open</summary><p>secret words</p></details>'],
    ['not-rendered', '<noembed>secret words</noembed>'],
    ['title', '<title>secret words</title>'],
    ['comment', '<!-- secret words -->'],
  ])('%s', async (technique, hiding) => {
    const result = await see(`<!doctype html>${hiding}<p>Seen</p>`);
    expect(result.techniques).toEqual([technique]);
    expect(result.charsByTechnique).toEqual({ [technique]: 11 });
    expect(result.hiddenText).toBe('secret words');
    expect(result.hiddenWords).toBe(2);
    expect(result.visibleText).toContain('Seen');
  });

  it('invisible-characters, counted but not shown as hidden text', async () => {
    const result = await see('<!doctype html><p>Se\u200ben\u200b\u200b</p>');
    expect(result).toMatchObject({
      techniques: ['invisible-characters'],
      charsByTechnique: { 'invisible-characters': 3 },
      hiddenChars: 3,
      hiddenText: '',
      hiddenWords: 0,
      visibleText: 'Seen',
    });
  });
});

describe('style sheets in document order', () => {
  it('lets a later <style> override an earlier one', async () => {
    const shown = await see(
      '<!doctype html><style>.a{display:none}</style><div><style>.a{display:block}</style></div><p class="a">Seen</p>',
    );
    expect(shown).toMatchObject({ visibleText: 'Seen', hiddenText: '' });
    const hidden = await see(
      '<!doctype html><style>.a{display:block}</style><div><style>.a{display:none}</style></div><p class="a">Gone</p>',
    );
    expect(hidden).toMatchObject({ visibleText: '', hiddenText: 'Gone' });
  });

  it('reads a <style> that is the first child, among siblings of other kinds', async () => {
    const result = await see('<style>.a{display:none}</style>text<!--c--><p class="a">Gone</p>');
    expect(result.hiddenText).toContain('Gone');
  });

  it('reads a <style> after a <template>, and none inside one however deep', async () => {
    const result = await see(
      '<!doctype html><template><div><style>.b{display:none}</style></div></template><style>.a{display:none}</style>' +
        '<p class="a">Gone</p><p class="b">Seen</p>',
    );
    expect(result).toMatchObject({ visibleText: 'Seen', hiddenText: 'Gone' });
  });

  it('reads a <style> inside an <svg>', async () => {
    const result = await see('<!doctype html><svg><style>.a{display:none}</style></svg><p class="a">Gone</p>');
    expect(result.hiddenText).toBe('Gone');
  });
});

describe('what cut the analysis short', () => {
  it('reports nesting flattened past 512 levels', async () => {
    const result = await see(`<!doctype html>${'<div>'.repeat(600)}x`);
    expect(result.limitsReached).toEqual(['depth-flattened']);
  });

  it('reports style text past 256 KiB', async () => {
    const result = await see(`<!doctype html><style>/*${'x'.repeat(256 * 1024)}*/</style><p>x</p>`);
    expect(result.limitsReached).toEqual(['style-text-capped']);
  });

  it('reports rules past 4000', async () => {
    const result = await see(`<!doctype html><style>${'a{color:red}'.repeat(4001)}</style><p>x</p>`);
    expect(result.limitsReached).toEqual(['style-rules-capped']);
  });

  it('reports nothing for 4000 rules', async () => {
    const result = await see(`<!doctype html><style>${'a{color:red}'.repeat(4000)}</style><p>x</p>`);
    expect(result.limitsReached).toEqual([]);
  });
});

describe('styling named as not assessed', () => {
  it('names at most eight, style-sheet doubts first', async () => {
    const properties = ['mask-image', 'backdrop-filter', 'mask', 'perspective', 'offset-path'];
    const html =
      '<!doctype html><style>@supports (display:grid){.q{color:red}} @container x {.q{color:red}} p::first-line{color:red}</style>' +
      `${properties.map((p, i) => `<p style="${p}:url(#m${i})">t${i}</p>`).join('')}` +
      '<p style="position:fixed">f</p><p style="position:sticky">s</p>';
    const result = await see(html);
    expect(result.unassessed).toEqual([
      '@supports',
      '@container',
      '::first-line',
      'mask-image',
      'backdrop-filter',
      'mask',
      'perspective',
      'offset-path',
    ]);
  });
});

describe('names that are keys of every JavaScript object', () => {
  it.each(['constructor', '__proto__'])('reads a property named %s as one not understood', async (name) => {
    const result = await see(`<style>p { ${name}: x }</style><p style="${name}: x">seen</p>`);
    expect(result.visibleText).toBe('seen');
    expect(result.unassessed).toEqual([name]);
  });

  it('lays an unknown <constructor> element out inline, as a browser does', async () => {
    expect((await see('<p>a<constructor>b</constructor>c</p>')).visibleText).toBe('abc');
  });
});

describe('preparing before analysing', () => {
  it('loads the style-sheet parser for any of several bodies, and refuses a <style> it was not prepared for', async () => {
    // A fresh module graph: the parser another test loaded is not there.
    vi.resetModules();
    const fresh = await import('../../../../src/present/hidden/analyse-html.js');
    expect(fresh.analyseHtml('<p>no style</p>').visibleText).toBe('no style');
    expect(() => fresh.analyseHtml('<style>.a{display:none}</style><p class="a">x</p>')).toThrow(
      'analyseHtml called before prepareHtmlVisibility for HTML with <style>',
    );
    await fresh.prepareHtmlVisibility(['<p>plain</p>', '<style>.a{display:none}</style><p class="a">x</p>']);
    expect(fresh.analyseHtml('<style>.a{display:none}</style><p class="a">x</p>').hiddenText).toBe('x');
  });
});
