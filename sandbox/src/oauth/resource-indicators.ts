/** Prefix of the resource indicator that names one inbox (spec §4.1). */
export const inboxResourcePrefix = 'urn:service:agent:';

/** A UUID in the canonical lowercase form the service hands out (accountId, spec §2.1). */
export const accountIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a resource parameter names. */
export type ResourceTarget = { kind: 'jmap' } | { kind: 'mcp' } | { kind: 'inbox'; accountId: string };

/** The resource identifiers of this service, known once its hosts listen. */
export interface ResourceIdentifiers {
  /** `{api_url}/jmap`. */
  jmap(): string;
  /** `{mcp_url}/mcp`, when the sandbox has a hosted MCP address. */
  mcp(): string | undefined;
}

/**
 * The target of a resource parameter, or undefined when it is none of the three forms of spec §4.1.
 * Compared byte for byte: no trailing slash, no other scheme, no other spelling of the host.
 */
export function resourceTargetOf(resource: string, ids: ResourceIdentifiers): ResourceTarget | undefined {
  if (resource === ids.jmap()) return { kind: 'jmap' };
  const mcp = ids.mcp();
  if (mcp !== undefined && resource === mcp) return { kind: 'mcp' };
  if (resource.startsWith(inboxResourcePrefix)) {
    const accountId = resource.slice(inboxResourcePrefix.length);
    if (accountIdPattern.test(accountId)) return { kind: 'inbox', accountId };
  }
  return undefined;
}
