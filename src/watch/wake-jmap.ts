import type { Account } from '../auth/account-registry.js';
import { JmapClient } from '../jmap/jmap-client.js';
import type { Logger } from '../log.js';
import { jmapCapabilities } from '../wire-constants.js';
import type { JmapCall } from './fetch-new-mail.js';
import type { WakeJmap } from './wake.js';

/** The wake's JMAP access through the shared client (session cache, 401 re-mint, retries). */
export async function createWakeJmap(account: Account, log: Logger, signal?: AbortSignal): Promise<WakeJmap> {
  const config = await account.config();
  const client = new JmapClient(account, { log, timeoutMs: config.timeoutMs });
  const opts = signal ? { signal } : {};
  return {
    async accountId() {
      return (await client.session(opts)).accountId;
    },
    async request(methodCalls: JmapCall[]) {
      const response = await client.call({ using: [jmapCapabilities.core, jmapCapabilities.mail], methodCalls }, opts);
      return response.methodResponses;
    },
  };
}
