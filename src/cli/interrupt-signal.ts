import { MailboxError } from '../errors.js';

/** Aborts on Ctrl-C / SIGTERM so in-flight work stops cleanly and no file is left half-written. */
export function interruptSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (): void =>
    controller.abort(
      new MailboxError({ code: 'cancelled', message: 'Interrupted.', hint: 'Run the command again when ready.' }),
    );
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
