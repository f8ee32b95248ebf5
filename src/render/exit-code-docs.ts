import { exitCodes, inputCodes, policyCodes } from './render-error.js';

/** What each exit code means, written next to nothing else so that every doc shows the same words. */
const meanings: { readonly [K in keyof typeof exitCodes]: string } = {
  ok: 'done (for `wake`: the state advanced, or another wake was running)',
  failure:
    'failure, including every refusal or error from a server, a `jmap_request` whose calls failed and a `wake` that did not advance: the output says what failed and what to do next',
  usage: 'usage: bad flags or arguments, or input refused here before anything was sent',
  policy: "refused by the operator's policy, or a change to it that needs the operator at a terminal",
};

/** The error codes that lead to an exit code other than 1 (1 is every other code). */
const codesOf: { readonly [K in keyof typeof exitCodes]?: ReadonlySet<string> } = {
  usage: inputCodes,
  policy: policyCodes,
};

/** The CLI's exit codes as a Markdown table, from `exitCodes` and the sets `exitCodeOf` decides with. */
export function renderExitCodeTable(): string {
  const rows = (Object.keys(exitCodes) as (keyof typeof exitCodes)[]).map((name) => {
    const codes = codesOf[name];
    const listed = codes ? ` (error codes ${[...codes].map((code) => `\`${code}\``).join(', ')})` : '';
    return `| ${exitCodes[name]} | ${meanings[name]}${listed} |`;
  });
  return ['| exit code | meaning |', '| --- | --- |', ...rows].join('\n');
}
