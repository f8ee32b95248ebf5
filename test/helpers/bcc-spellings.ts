/** Spellings a lenient composer or parser may read as Bcc: whitespace, control characters, DEL or invisible characters dropped, compatibility forms folded. */
export const bccSpellings: Record<string, string> = {
  'trailing space': 'Bcc ',
  tab: 'Bcc\t',
  'no-break space': 'Bcc\u00a0',
  'inner space': 'B cc',
  NUL: 'Bcc\u0000',
  DEL: 'B\u007fcc',
  'line feed': 'Bcc\n',
  'fullwidth letters': 'Ｂｃｃ',
  'zero-width space': 'B\u200bcc',
};
