import { z } from 'zod';
import { Deadline } from '../gate/deadline.js';
import { requestService } from '../gate/send-to-service.js';
import type { FetchFunction } from '../http/http-types.js';
import type { Logger } from '../log.js';
import { jmapCapabilities, jmapSessionPath } from '../wire-constants.js';

const sessionShape = z.looseObject({ primaryAccounts: z.record(z.string(), z.string()) });

/**
 * The JMAP session's primary mail account id (spec §2.6), which on the proof-of-work path is the
 * inbox's full address. Best effort: register must not fail after the apiKey is stored because
 * discovery did (the reference client lost keys that way, live-service.md).
 */
export async function discoverJmapAccountId(
  apiUrl: string,
  capability: string,
  options: { timeoutMs: number; log: Logger; fetch?: FetchFunction; signal?: AbortSignal; deadline?: Deadline },
): Promise<string | undefined> {
  try {
    const response = await requestService(
      `${apiUrl}${jmapSessionPath}`,
      { method: 'GET', headers: { authorization: `Bearer ${capability}`, accept: 'application/json' } },
      {
        deadline: options.deadline ?? Deadline.start({ timeoutMs: options.timeoutMs }),
        retry: 'idempotent',
        maxBytes: 1024 * 1024,
        log: options.log,
        retries: 1,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
    const parsed = sessionShape.safeParse(response.json());
    return parsed.success ? parsed.data.primaryAccounts[jmapCapabilities.mail] : undefined;
  } catch (error) {
    options.log.debug(`JMAP session discovery after register failed (not needed now): ${(error as Error).message}`);
    return undefined;
  }
}
