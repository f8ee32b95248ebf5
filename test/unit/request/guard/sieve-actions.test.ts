import { describe, expect, it } from 'vitest';
import { sieveActions } from '../../../../src/request/guard/mail/sieve-actions.js';

describe('the sending actions of a Sieve script', () => {
  it('finds redirect targets as strings and lists, past tags, comments and multi-line text', () => {
    const script = [
      'require ["copy", "fileinto"];',
      '# redirect "commented@x.test";',
      '/* redirect "block@x.test"; */',
      'if header :contains "subject" "invoice" { redirect :copy "a@x.test"; }',
      'redirect ["b@x.test", "c@x.test"];',
      'fileinto "Archive";',
      'if true { keep; } # vacation in a comment',
      'set "x" text:',
      'vacation inside text',
      '.',
      ';',
    ].join('\n');
    expect(sieveActions(script)).toEqual({ redirects: ['a@x.test', 'b@x.test', 'c@x.test'], answersAnyone: [] });
  });

  it('reports actions that answer whoever writes', () => {
    expect(sieveActions('require "vacation"; vacation :days 3 "Away";').answersAnyone).toEqual(['vacation']);
    expect(sieveActions('require "reject"; reject "no";').answersAnyone).toEqual(['reject']);
  });

  it('calls unreadable what it cannot follow: variables, includes, broken scripts', () => {
    expect(sieveActions('redirect "${to}";').unreadable).toBeDefined();
    expect(sieveActions('require "include"; include "other";').unreadable).toBeDefined();
    expect(sieveActions('redirect "unterminated;').unreadable).toBeDefined();
    expect(sieveActions('redirect;').unreadable).toBeDefined();
  });
});

describe('redirects a script could hide from a careless reader', () => {
  it('finds commands in any letter case, since Sieve reads them so', () => {
    expect(
      sieveActions('REDIRECT "a@x.test"; Vacation "away"; EReject "no"; Notify :message "hi" "mailto:b@x.test";'),
    ).toEqual({ redirects: ['a@x.test'], answersAnyone: ['vacation', 'ereject', 'notify'] });
  });

  it('reads a target written as multi-line text, with its dot-stuffing undone and CRLF line ends', () => {
    expect(sieveActions('redirect text: # where to\r\nbob@x.test\r\n.\r\n;').redirects).toEqual(['bob@x.test']);
    expect(sieveActions('redirect text:\n..dots@x.test\n.\n;').redirects).toEqual(['.dots@x.test']);
  });

  it('unescapes quoted strings, and takes a string only up to its closing quote', () => {
    expect(sieveActions('redirect "a\\"b@x.test"; redirect "c\\\\@x.test";').redirects).toEqual([
      'a"b@x.test',
      'c\\@x.test',
    ]);
  });

  it('skips numbers and sizes, comments running to the end, and strings in lists that are not strings', () => {
    expect(sieveActions('if size :over 100K { redirect :copy "big@x.test"; } # the end').redirects).toEqual([
      'big@x.test',
    ]);
    expect(sieveActions('redirect ["a@x.test", 42, "b@x.test"];').redirects).toEqual(['a@x.test', 'b@x.test']);
  });

  it('calls unreadable an unclosed comment, an empty list of targets, and stops reading at the first thing it cannot follow', () => {
    expect(sieveActions('/* redirect "a@x.test"; ').unreadable).toBe('the script cannot be read');
    expect(sieveActions('redirect [];').unreadable).toBe('a redirect target is not a plain address');
    expect(sieveActions('include "other"; redirect "a@x.test"; vacation "x";')).toEqual({
      redirects: [],
      answersAnyone: [],
      unreadable: 'it includes another script',
    });
    expect(sieveActions('redirect "${to}";')).toEqual({
      redirects: ['${to}'],
      answersAnyone: [],
      unreadable: 'a redirect target is not a plain address',
    });
  });
});
