/** One item of a style rule's body: a nested rule (`prelude { … }`) or a run of declarations. */
export interface RuleBodyItem {
  kind: 'rule' | 'declarations';
  text: string;
}

const closers: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };

/**
 * A rule body's text as nested rules and runs of declarations, in source order. css-tree reads a
 * body's declarations up to the first nested rule and leaves the rest as raw text; declarations
 * after a nested rule still style the parent's elements (CSS Nesting §3.2, "nested declarations
 * rules"), so they are split off here rather than read as one more selector.
 */
export function splitRuleBody(text: string): RuleBodyItem[] {
  const items: RuleBodyItem[] = [];
  const open: string[] = [];
  let start = 0;
  let declarations = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '\\') i++;
    else if (char === '"' || char === "'") {
      let end = i + 1;
      while (end < text.length && text[end] !== char && text[end] !== '\n') end += text[end] === '\\' ? 2 : 1;
      i = end;
    } else if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
    } else if (open.length === 0 && char === ';') {
      declarations += text.slice(start, i + 1);
      start = i + 1;
    } else if (closers[char]) open.push(closers[char] as string);
    else if (open.length > 0 && char === open[open.length - 1]) {
      open.pop();
      if (open.length === 0 && char === '}') {
        if (declarations.trim() !== '') items.push({ kind: 'declarations', text: declarations });
        items.push({ kind: 'rule', text: text.slice(start, i + 1) });
        declarations = '';
        start = i + 1;
      }
    }
  }
  declarations += text.slice(start);
  if (declarations.trim() !== '') items.push({ kind: 'declarations', text: declarations });
  return items;
}
