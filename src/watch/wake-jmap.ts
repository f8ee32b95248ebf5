import type { Account } from '../auth/account-registry.js';
import type { Deadline } from '../gate/deadline.js';
import type { Check } from '../gate/outgoing.js';
import { openServiceGate } from '../gate/service-gate.js';
import type { Logger } from '../log.js';
import { checkOutgoing } from '../request/check-outgoing.js';
import { jmapCapabilities } from '../wire-constants.js';
import type { JmapCall, JmapCaller } from './fetch-new-mail.js';

/** The account's JMAP access as the wake uses it. */
export interface WakeJmap extends JmapCaller {
  accountId(): Promise<string>;
}

/**
 * The wake's JMAP access through the gate of its run (session cache, 401 re-mint, the run's
 * deadline), marked as a wake run for the check stage, which sees every read.
 */
export function createWakeJmap(
  account: Account,
  options: { log: Logger; deadline: Deadline; signal?: AbortSignal; check?: Check },
): WakeJmap {
  const gate = openServiceGate(account, {
    log: options.log,
    deadline: options.deadline,
    signal: options.signal ?? new AbortController().signal,
    isWake: true,
    check: options.check ?? checkOutgoing,
  });
  return {
    async accountId() {
      return (await gate.session()).accountId;
    },
    async request(methodCalls: JmapCall[]) {
      const response = await gate.call({ using: [jmapCapabilities.core, jmapCapabilities.mail], methodCalls });
      return response.methodResponses;
    },
  };
}
