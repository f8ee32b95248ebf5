import { describe, expect, it } from 'vitest';
import { inferUsing } from '../../../src/jmap/parse-ops.js';

const core = 'urn:ietf:params:jmap:core';
const mail = 'urn:ietf:params:jmap:mail';
const submission = 'urn:ietf:params:jmap:submission';
const blob = 'urn:ietf:params:jmap:blob';

describe('inferUsing', () => {
  it('gives a bare read batch core + mail only', () => {
    expect(
      inferUsing(
        [
          ['Email/query', {}, 'a'],
          ['Mailbox/get', {}, 'b'],
        ],
        [core, mail, submission, blob],
      ),
    ).toEqual([core, mail]);
  });

  it('adds submission for EmailSubmission and Identity calls when the session advertises it', () => {
    expect(
      inferUsing(
        [
          ['Email/set', {}, 'a'],
          ['EmailSubmission/set', {}, 'b'],
        ],
        [core, mail, submission],
      ),
    ).toEqual([core, mail, submission]);
    expect(inferUsing([['Identity/get', {}, 'a']], [core, mail, submission])).toEqual([core, mail, submission]);
  });

  it('adds blob for Blob/* calls only when the session advertises it', () => {
    expect(inferUsing([['Blob/upload', {}, 'a']], [core, mail, blob])).toEqual([core, mail, blob]);
    expect(inferUsing([['Blob/upload', {}, 'a']], [core, mail, submission])).toEqual([core, mail]);
  });

  it('adds what the methods need when no session is known (dry run)', () => {
    expect(
      inferUsing(
        [
          ['Blob/upload', {}, 'a'],
          ['EmailSubmission/set', {}, 'b'],
        ],
        undefined,
      ),
    ).toEqual([core, mail, submission, blob]);
  });

  it("keeps an envelope's own using unchanged", () => {
    expect(inferUsing([['EmailSubmission/set', {}, 'a']], [core, mail, submission], [core])).toEqual([core]);
  });
});
