import {
  analyseHtml,
  prepareHtmlVisibility,
  type HtmlVisibility,
} from '../../../../src/present/hidden/analyse-html.js';

/** What a person sees of `html`: the analysis after the parsers it needs are loaded. */
export async function see(html: string): Promise<HtmlVisibility> {
  await prepareHtmlVisibility(html);
  return analyseHtml(html);
}

/** The same for `html` between an ordinary greeting and sign-off, as it stands in a real mail. */
export async function seeInPage(html: string): Promise<HtmlVisibility> {
  return see(`<!doctype html><p>Hello there</p>${html}<p>Kind regards</p>`);
}
