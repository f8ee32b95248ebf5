import { expect } from 'vitest';
import { MailboxError } from '../../src/errors.js';

/** The MailboxError a refused call ends with; fails the test when it was not refused. */
export async function refusal(promise: Promise<unknown>): Promise<MailboxError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should have been refused').toBeInstanceOf(MailboxError);
  return error as MailboxError;
}
