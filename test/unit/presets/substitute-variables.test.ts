import { describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { omitValue, substituteVariables, variableNamePattern } from '../../../src/presets/substitute-variables.js';

/** The error substituting `value` with no variables throws. */
function varsError(value: unknown): MailboxError {
  try {
    substituteVariables(value, {});
  } catch (error) {
    return error as MailboxError;
  }
  throw new Error('no error');
}

describe('substituteVariables', () => {
  it('keeps quotes, backslashes, tabs, newlines and emoji intact inside the resulting JSON', () => {
    const body = 'He said "hi"\\ then\tleft.\nLine 2 🎉 \u2028 end';
    const { value } = substituteVariables([['Email/set', { text: '$BODY' }, 'c']], { BODY: body });
    const roundTrip = JSON.parse(JSON.stringify(value)) as [string, { text: string }, string][];
    expect(roundTrip[0]?.[1].text).toBe(body);
  });

  it('keeps a "__proto__" key a field of the request, as JSON.parse made it, never the prototype of what is sent', () => {
    const ops = JSON.parse('[["Email/set", {"__proto__": {"to": "$TO"}, "accountId": "$ACCOUNT"}, "c"]]') as unknown;
    const { value } = substituteVariables(ops, { TO: 'a@example.org', ACCOUNT: 'A1' });
    expect(JSON.stringify(value)).toBe('[["Email/set",{"__proto__":{"to":"a@example.org"},"accountId":"A1"},"c"]]');
    const args = (value as [string, Record<string, unknown>, string][])[0]?.[1];
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(args?.to).toBeUndefined();
    // A key a placeholder names stays a field too, whatever the variable says.
    const named = substituteVariables({ $KEY: { to: 'b@example.org' } }, { KEY: '__proto__' }).value;
    expect(JSON.stringify(named)).toBe('{"__proto__":{"to":"b@example.org"}}');
    expect(Object.getPrototypeOf(named)).toBe(Object.prototype);
  });

  it('replaces a placeholder inside a longer string with the value text', () => {
    const { value } = substituteVariables({ s: 'Hello $NAME, 2 × $N items' }, { NAME: 'Bob "B"', N: 3 });
    expect(value).toEqual({ s: 'Hello Bob "B", 2 × 3 items' });
  });

  it('gives a whole-string placeholder the variable JSON value, so a number stays a number', () => {
    const { value } = substituteVariables(
      { limit: '$LIMIT', to: '$TO', flag: '$ON' },
      { LIMIT: 20, TO: [{ email: 'a@b.c' }], ON: true },
    );
    expect(value).toEqual({ limit: 20, to: [{ email: 'a@b.c' }], flag: true });
  });

  it('never reads JMAP keywords like $Forwarded, $seen or $draft as variables', () => {
    const input = { keywords: { $Forwarded: true, $seen: true, $draft: true }, s: 'x $Forwarded y' };
    const { value } = substituteVariables(input, { F: 'boom' });
    expect(value).toEqual(input);
  });

  it('ends a name at a word boundary', () => {
    const { value } = substituteVariables({ s: '$ID-suffix $IDX' }, { ID: 'a' }, { keepMissing: true });
    expect(value).toEqual({ s: 'a-suffix $IDX' });
  });

  it('writes $$ as a literal dollar sign', () => {
    const { value } = substituteVariables({ s: 'costs $$5 and $$NAME stays' }, { NAME: 'x' });
    expect(value).toEqual({ s: 'costs $5 and $NAME stays' });
  });

  it('substitutes inside object keys, whole and as a path segment', () => {
    const { value } = substituteVariables(
      {
        mailboxIds: { $INBOX_MAILBOX_ID: true },
        update: { 'mailboxIds/$INBOX_MAILBOX_ID': null, 'keywords/$draft': null },
      },
      { INBOX_MAILBOX_ID: 'mb1' },
    );
    expect(value).toEqual({ mailboxIds: { mb1: true }, update: { 'mailboxIds/mb1': null, 'keywords/$draft': null } });
  });

  it('reports every missing name in one vars_missing error', () => {
    let caught: unknown;
    try {
      substituteVariables({ a: '$TO', b: 'x $SUBJECT', c: { $MAIL_ID: 1 }, d: '$TO' }, {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MailboxError);
    const error = caught as MailboxError;
    expect(error.code).toBe('vars_missing');
    expect(error.details?.missing).toEqual(['MAIL_ID', 'SUBJECT', 'TO']);
    expect(error.message).toContain('$MAIL_ID, $SUBJECT, $TO');
  });

  it('leaves missing names visible when asked to keep them (dry run)', () => {
    const { value, missing } = substituteVariables({ a: '$TO', b: 'x $SUBJECT' }, {}, { keepMissing: true });
    expect(value).toEqual({ a: '$TO', b: 'x $SUBJECT' });
    expect(missing).toEqual(['SUBJECT', 'TO']);
  });

  it('drops a property or array element whose optional variable was not given', () => {
    const { value } = substituteVariables(
      { filter: { text: '$TEXT', from: '$FROM' }, list: ['$FROM', 'x'] },
      { TEXT: 't', FROM: omitValue },
    );
    expect(value).toEqual({ filter: { text: 't' }, list: ['x'] });
  });

  it('does not alias the variable value between substitutions', () => {
    const to = [{ email: 'a@b.c' }];
    const { value } = substituteVariables({ a: '$TO', b: '$TO' }, { TO: to });
    (value.a as unknown as { email: string }[])[0]!.email = 'changed';
    expect(to[0]?.email).toBe('a@b.c');
    expect((value.b as unknown as { email: string }[])[0]?.email).toBe('a@b.c');
  });

  it('counts a variable given as undefined as missing', () => {
    expect(() => substituteVariables({ a: '$TO' }, { TO: undefined })).toThrow(MailboxError);
    expect(() => substituteVariables({ a: 'to $TO' }, { TO: undefined })).toThrow(MailboxError);
  });

  it('writes an omitted optional variable inside a longer string as nothing', () => {
    expect(substituteVariables({ a: 'from:$FROM;' }, { FROM: omitValue }).value).toEqual({ a: 'from:;' });
  });

  it('writes a non-string value inside a longer string as its JSON', () => {
    expect(substituteVariables({ a: 'ids $IDS and $N' }, { IDS: ['x', 'y'], N: 3 }).value).toEqual({
      a: 'ids ["x","y"] and 3',
    });
    expect(substituteVariables({ a: 'o=$O' }, { O: { k: 'v' } }).value).toEqual({ a: 'o={"k":"v"}' });
  });

  it('names one missing placeholder in the singular, several in the plural, and shows how to pass them', () => {
    const one = varsError({ a: '$TO' });
    expect(one.message).toBe('No value for placeholder $TO.');
    expect(one.hint).toBe('Pass them in vars, e.g. {"TO": "…"}; write $$ for a literal dollar sign.');
    expect(one.next).toEqual({ operation: 'help', input: { topic: 'presets' } });
    const several = varsError({ a: '$TO $CC' });
    expect(several.message).toBe('No value for placeholders $CC, $TO.');
    expect(several.hint).toContain('{"CC": "…", "TO": "…"}');
  });

  it('accepts as a variable name only capitals, digits and underscores starting with a capital', () => {
    for (const name of ['TO', 'A1', 'MAIL_ID']) expect(variableNamePattern.test(name), name).toBe(true);
    for (const name of ['to', '1A', '_A', 'xTO', 'TO-x', 'TO ', ' TO', ''])
      expect(variableNamePattern.test(name), name).toBe(false);
  });
});
