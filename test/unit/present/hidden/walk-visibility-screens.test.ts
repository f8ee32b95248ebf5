import { describe, expect, it } from 'vitest';
import { see } from './see-html.js';

describe('rules for one screen next to rules for all', () => {
  it('keeps text a phone-only rule hides visible when a rule for every screen also matches it', async () => {
    const result = await see(
      '<!doctype html><style>p{color:#000} @media (max-width:600px){p.a{display:none}}</style><p class="a">Seen on desktop</p>',
    );
    expect(result).toMatchObject({ visibleText: 'Seen on desktop', hiddenText: '' });
  });

  it('hides text that rules for each screen hide, whatever else matches it', async () => {
    const result = await see(
      '<!doctype html><style>p{color:#000} @media (max-width:600px){p.a{display:none}} @media (min-width:601px){p.a{display:none}}</style>' +
        '<p class="a">Gone</p><p>Seen</p>',
    );
    expect(result).toMatchObject({ visibleText: 'Seen', hiddenText: 'Gone' });
  });
});

describe('an element whose text is hidden on one screen only', () => {
  it('keeps an image link in the visible HTML', async () => {
    // Hidden on one screen only, so the link is not a text-hidden element: its image still shows.
    const html =
      '<!doctype html><style>@media (max-width:600px){a.x{font-size:0}}</style>' +
      '<p>Seen <a class="x" href="https://ok.test/"><img src="logo.png" alt=""></a></p>';
    const result = await see(html);
    expect(result.visibleHtml).toContain('<a class="x" href="https://ok.test/"><img src="logo.png" alt></a>');
  });
});
