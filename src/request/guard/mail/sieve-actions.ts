/**
 * The sending actions of a Sieve script (RFC 5228): `redirect` targets and what answers whoever writes.
 * What the reader cannot follow (a variable target, an `include`, a malformed script) is unreadable.
 */

export interface SieveActions {
  redirects: string[];
  /** Actions that mail whoever writes: vacation, reject, ereject, notify. */
  answersAnyone: string[];
  unreadable?: string;
}

type Token = { kind: 'word' | 'tag' | 'string' | 'punct'; text: string };

function tokenize(script: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < script.length) {
    const rest = script.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    if (rest.startsWith('#')) {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end + 1;
      continue;
    }
    if (rest.startsWith('/*')) {
      const end = script.indexOf('*/', i + 2);
      if (end === -1) return undefined;
      i = end + 2;
      continue;
    }
    if (rest.startsWith('"')) {
      let text = '';
      let j = i + 1;
      for (; j < script.length && script.charAt(j) !== '"'; j += 1) {
        if (script.charAt(j) === '\\') j += 1;
        text += script.charAt(j);
      }
      if (j >= script.length) return undefined;
      tokens.push({ kind: 'string', text });
      i = j + 1;
      continue;
    }
    const multiline = /^text:[ \t]*(?:#[^\n]*)?\r?\n([\s\S]*?)\r?\n\.\r?\n/.exec(rest);
    if (multiline) {
      tokens.push({ kind: 'string', text: (multiline[1] ?? '').replace(/^\.\./gm, '.') });
      i += multiline[0].length;
      continue;
    }
    const word = /^:?[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (word) {
      tokens.push({ kind: word[0].startsWith(':') ? 'tag' : 'word', text: word[0].toLowerCase() });
      i += word[0].length;
      continue;
    }
    const number = /^[0-9]+[KMG]?/i.exec(rest);
    if (number) {
      i += number[0].length;
      continue;
    }
    tokens.push({ kind: 'punct', text: script.charAt(i) });
    i += 1;
  }
  return tokens;
}

export function sieveActions(script: string): SieveActions {
  const out: SieveActions = { redirects: [], answersAnyone: [] };
  const tokens = tokenize(script);
  if (!tokens) return { ...out, unreadable: 'the script cannot be read' };
  tokens.forEach((token, index) => {
    if (token.kind !== 'word' || out.unreadable) return;
    if (token.text === 'include') out.unreadable = 'it includes another script';
    if (['vacation', 'reject', 'ereject', 'notify'].includes(token.text)) out.answersAnyone.push(token.text);
    if (token.text !== 'redirect') return;
    let at = index + 1;
    while (tokens[at]?.kind === 'tag') at += 1;
    const targets: string[] = [];
    if (tokens[at]?.kind === 'string') targets.push(tokens[at]!.text);
    else if (tokens[at]?.text === '[') {
      for (at += 1; tokens[at] && tokens[at]!.text !== ']'; at += 1)
        if (tokens[at]!.kind === 'string') targets.push(tokens[at]!.text);
    }
    if (targets.length === 0 || targets.some((t) => t.includes('${')))
      out.unreadable = 'a redirect target is not a plain address';
    out.redirects.push(...targets);
  });
  return out;
}
