// Renders the ordinary-mail fixtures of the hidden-text tests from the templates beside this
// script: MJML templates with mjml, Foundation for Emails templates with inky and the framework's
// own CSS, inlined by juice as Foundation's build does (media queries stay in a <style>). The output is committed as rendered and not edited afterwards, so the tests measure
// the detector on markup the frameworks write. Run: node scripts/render-hidden-text-fixtures.mjs
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const mjml = require('mjml');
const { Inky } = require('inky');
const juice = require('juice');

const here = join(dirname(fileURLToPath(import.meta.url)), 'hidden-text-fixtures');
const out = join(here, '..', '..', 'test', 'fixtures', 'hidden-text', 'ordinary', 'rendered');
mkdirSync(out, { recursive: true });
/** What each rendered mail hides on purpose (its preheader, an accordion's closed panels), for the false-positive count. */
const preheaders = {};

for (const file of readdirSync(join(here, 'mjml')).sort()) {
  const source = readFileSync(join(here, 'mjml', file), 'utf8');
  const { html, errors } = mjml(source, { validationLevel: 'strict', keepComments: true });
  if (errors.length > 0) throw new Error(`${file}: ${errors.map((e) => e.formattedMessage).join('; ')}`);
  const name = `mjml-${basename(file, '.mjml')}.html`;
  writeFileSync(join(out, name), html);
  const preview = /<mj-preview>([^<]*)<\/mj-preview>/.exec(source)?.[1];
  const panels = [...source.matchAll(/<mj-accordion-text>([^<]*)<\/mj-accordion-text>/g)].map((m) => m[1]);
  if (preview || panels.length > 0) preheaders[name] = [...(preview ? [preview] : []), ...panels];
}

const foundationCss = readFileSync(require.resolve('foundation-emails/dist/foundation-emails.css'), 'utf8');
for (const file of readdirSync(join(here, 'inky')).sort()) {
  const source = readFileSync(join(here, 'inky', file), 'utf8');
  const body = new Inky().releaseTheKraken(source);
  const page = `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"><meta name="viewport" content="width=device-width"><title>${basename(file, '.html')}</title><style>${foundationCss}</style></head>
<body><table class="body" data-made-with-foundation=""><tr><td class="float-center" align="center" valign="top"><center>${body}</center></td></tr></table></body></html>
`;
  const html = juice(page, {
    preserveMediaQueries: true,
    removeStyleTags: true,
    applyWidthAttributes: true,
    applyHeightAttributes: true,
  });
  const name = `inky-${basename(file)}`;
  writeFileSync(join(out, name), html);
  const preview = /<span class="preheader">([^<]*)<\/span>/.exec(source)?.[1];
  if (preview) preheaders[name] = [preview];
}
writeFileSync(join(out, 'expected-hidden.json'), `${JSON.stringify(preheaders, null, 2)}\n`);
console.log(`rendered into ${out}`);
