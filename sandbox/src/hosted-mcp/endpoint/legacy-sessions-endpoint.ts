import { randomUUID } from 'node:crypto';
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpServer,
} from '@modelcontextprotocol/server';
import type { HostedCaller } from './hosted-caller.js';
import { McpSessions } from './mcp-sessions.js';

/** A JSON-RPC error answer outside any session (the shape the SDK's transport uses). */
export function jsonRpcErrorResponse(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * The 2025-era Streamable HTTP endpoint with transport sessions as the SDK keeps them: an
 * `initialize` POST opens a session (its own McpServer and transport), later requests name it
 * with Mcp-Session-Id. A session is bound to the credential of its first request; a request of
 * that session with another apiKey, another grant's token, or a token where a key opened it, is
 * refused before the transport sees it.
 */
export class LegacySessionsEndpoint {
  private readonly sessions: McpSessions;

  constructor(
    private readonly buildServer: () => McpServer,
    private readonly options: { maxSessions: number; maxRequestBytes: number },
  ) {
    this.sessions = new McpSessions(options.maxSessions);
  }

  /** Serves one request of a verified caller. */
  async handle(request: Request, parsedBody: unknown, caller: HostedCaller, authInfo: AuthInfo): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const session = this.sessions.use(sessionId);
      // 404 makes a client start a new session (the transport's own answer to an unknown id).
      if (!session)
        return jsonRpcErrorResponse(
          404,
          -32001,
          'Session not found: it ended or was never opened; initialize a new one.',
        );
      if (session.bindingKey !== caller.bindingKey) {
        return jsonRpcErrorResponse(
          403,
          -32001,
          'This session is bound to the credential that opened it; a request with another apiKey or token is refused. Open a new session with this credential.',
        );
      }
      return session.transport.handleRequest(request, { parsedBody, authInfo });
    }
    if (request.method !== 'POST' || !isInitializeRequest(parsedBody)) {
      return jsonRpcErrorResponse(
        400,
        -32000,
        'Bad Request: no Mcp-Session-Id; the first request of a session is initialize.',
      );
    }
    return this.open(request, parsedBody, caller, authInfo);
  }

  /** How many sessions are open. */
  get size(): number {
    return this.sessions.size;
  }

  /** Ends every session. */
  close(): Promise<void> {
    return this.sessions.closeAll();
  }

  private async open(
    request: Request,
    parsedBody: unknown,
    caller: HostedCaller,
    authInfo: AuthInfo,
  ): Promise<Response> {
    const server = this.buildServer();
    let opened: string | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.options.maxRequestBytes,
      onsessioninitialized: (id) => {
        opened = id;
        this.sessions.add(id, { transport, server, bindingKey: caller.bindingKey });
      },
    });
    await server.connect(transport);
    // connect() took the transport's onclose; a session that closes (DELETE, eviction) is forgotten too.
    const onClose = transport.onclose;
    transport.onclose = () => {
      onClose?.();
      if (opened !== undefined) this.sessions.remove(opened);
    };
    const response = await transport.handleRequest(request, { parsedBody, authInfo });
    if (opened === undefined) {
      await server.close().catch(() => {});
    }
    return response;
  }
}
