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
