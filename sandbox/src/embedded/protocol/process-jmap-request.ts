import { z } from 'zod';
import { jmapCapabilities } from '../../wire-constants.js';
import type { InboxAccount } from '../store/inbox-account.js';
import { exceedsJsonDepth } from './json-depth.js';
import { jmapLimits, sandboxLimits, sandboxLimitsCapability } from './jmap-limits.js';
import { MethodError, RequestProblem } from './method-error.js';
import { jmapMethods } from '../methods/jmap-methods.js';
import type { MailNetwork } from '../store/mail-network.js';
import { resolveReferences, type Invocation } from './result-reference.js';

const requestShape = z.object({
  using: z.array(z.string()),
  methodCalls: z.array(z.tuple([z.string(), z.record(z.string(), z.unknown()), z.string()])),
  createdIds: z.record(z.string(), z.string()).optional(),
});

const knownCapabilities: ReadonlySet<string> = new Set([...Object.values(jmapCapabilities), sandboxLimitsCapability]);

/**
 * Processes one JMAP request body for the bearer's account (RFC 8620 §3.3–3.7): calls run in
 * order, each may reference earlier results, and a failing call never stops the ones after it.
 */
export async function processJmapRequest(
  body: unknown,
  account: InboxAccount,
  network: MailNetwork,
  sessionState: string,
  log: (line: string) => void,
): Promise<Record<string, unknown>> {
  if (exceedsJsonDepth(body, sandboxLimits.maxRequestDepth)) {
    throw new RequestProblem(
      'limit',
      `The request nests arrays and objects deeper than ${sandboxLimits.maxRequestDepth} levels (maxRequestDepth of ${sandboxLimitsCapability}).`,
      400,
      'maxRequestDepth',
    );
  }
  const parsed = requestShape.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RequestProblem(
      'notRequest',
      `The body is not a JMAP Request: ${issue?.path.join('/') || 'body'}: ${issue?.message ?? 'invalid'}.`,
    );
  }
  const request = parsed.data;
  const unknown = request.using.filter((capability) => !knownCapabilities.has(capability));
  if (unknown.length)
    throw new RequestProblem('unknownCapability', `Unknown capabilities in "using": ${unknown.join(', ')}.`);
  if (request.methodCalls.length > jmapLimits.maxCallsInRequest) {
    throw new RequestProblem(
      'limit',
      `${request.methodCalls.length} method calls exceed maxCallsInRequest (${jmapLimits.maxCallsInRequest}).`,
      400,
      'maxCallsInRequest',
    );
  }
  const using = new Set(request.using);
  const createdIds = new Map(Object.entries(request.createdIds ?? {}));
  const responses: Invocation[] = [];
  for (const [name, args, callId] of request.methodCalls) {
    try {
      const method = jmapMethods[name];
      if (!method || !using.has(method.capability)) {
        throw new MethodError(
          'unknownMethod',
          method ? `${name} needs "${method.capability}" in "using".` : `Unknown method ${name}.`,
        );
      }
      const resolved = resolveReferences(args, responses);
      // An accountId in the body can never reach another inbox (spec §4.2 rule 5).
      if (resolved['accountId'] !== undefined && resolved['accountId'] !== account.address) {
        throw new MethodError(
          'accountNotFound',
          `Account ${String(resolved['accountId'])} is not accessible with this token; use ${account.address}.`,
        );
      }
      const outcome = await method.run(resolved, { account, network, createdIds, using });
      responses.push([name, outcome.response, callId]);
      for (const [followName, followArgs] of outcome.follow ?? []) responses.push([followName, followArgs, callId]);
    } catch (error) {
      if (error instanceof MethodError) {
        responses.push(['error', error.toArguments(), callId]);
      } else {
        log(
          `embedded jmap: ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        // The exception text stays in the log: it may describe internals a client has no use for.
        responses.push([
          'error',
          {
            type: 'serverFail',
            description: `${name} failed inside the sandbox; the sandbox log on stderr has the details.`,
          },
          callId,
        ]);
      }
    }
  }
  return {
    methodResponses: responses,
    sessionState,
    ...(request.createdIds ? { createdIds: Object.fromEntries(createdIds) } : {}),
  };
}
