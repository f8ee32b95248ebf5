import { describe, expect, it } from 'vitest';
import { sieveActions } from '../../../../src/request/guard/mail/sieve-actions.js';

/**
 * Scripts written to make a reader lose its place: a comment that ends just before a quote, a
 * bracketed comment that opens with its own closing star, the command's name as a string or tag,
 * and a redirect hidden after what looks like the end of a list.
 */

describe('a Sieve reader that keeps its place', () => {
  it('resumes after a line comment on the next line, even when the comment ends in a quote', () => {
    expect(sieveActions('# "\nredirect "a@x.test";')).toEqual({ redirects: ['a@x.test'], answersAnyone: [] });
    expect(sieveActions('keep; # "')).toEqual({ redirects: [], answersAnyone: [] });
  });

  it('ends a bracketed comment at the first star-slash after its opening, not inside it', () => {
    expect(sieveActions('/*/ redirect "a@x.test"; */ keep;')).toEqual({ redirects: [], answersAnyone: [] });
    expect(sieveActions('/* x" */ redirect "b@x.test";')).toEqual({ redirects: ['b@x.test'], answersAnyone: [] });
  });

  it('takes only the command word for a command, never a string or tag that spells it', () => {
    expect(sieveActions('fileinto "redirect"; addflag :vacation "x";')).toEqual({ redirects: [], answersAnyone: [] });
  });

  it('reads every target of a list and the commands after it', () => {
    expect(sieveActions('redirect ["a@x.test"]; redirect "b@x.test"; reject "no";')).toEqual({
      redirects: ['a@x.test', 'b@x.test'],
      answersAnyone: ['reject'],
    });
    expect(sieveActions('redirect :copy :other ["a@x.test", "b@x.test"];').redirects).toEqual(['a@x.test', 'b@x.test']);
  });

  it('reads a multi-line target with spaces after its tag, and stops at the lone dot', () => {
    expect(sieveActions('redirect text:  \t\nc@x.test\n.\nredirect "d@x.test";').redirects).toEqual([
      'c@x.test',
      'd@x.test',
    ]);
  });
});
