import type { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

/** One transport session of the 2025 protocol era, and the caller it is bound to. */
export interface McpSession {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  /** The grant (OAuth) or the apiKey (by hash) of the session's first request. */
  bindingKey: string;
}

/**
 * The open transport sessions. A session is bound, on its first request, to the credential that
 * opened it; the endpoint refuses later requests of the session with any other. Bounded: past
 * `maxSessions` the least recently used session is closed (clients that vanish never say DELETE).
 */
export class McpSessions {
  /** In order of last use, oldest first (a used session is moved to the end). */
  private readonly sessions = new Map<string, McpSession>();

  constructor(private readonly maxSessions: number) {}

  /** A session by id, marked as used. */
  use(sessionId: string): McpSession | undefined {
    const session = this.sessions.get(sessionId);
    if (session) {
      this.sessions.delete(sessionId);
      this.sessions.set(sessionId, session);
    }
    return session;
  }

  /** Records a session once its transport has given it an id. */
  add(sessionId: string, session: McpSession): void {
    this.sessions.set(sessionId, session);
    for (const [oldestId, oldest] of this.sessions) {
      if (this.sessions.size <= this.maxSessions) break;
      this.sessions.delete(oldestId);
      void closeSession(oldest);
    }
  }

  /** Forgets a session whose transport closed. */
  remove(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** How many sessions are open. */
  get size(): number {
    return this.sessions.size;
  }

  /** Closes every session (the sandbox stops). */
  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map(closeSession));
  }
}

async function closeSession(session: McpSession): Promise<void> {
  await session.server.close().catch(() => {});
  await session.transport.close().catch(() => {});
}
