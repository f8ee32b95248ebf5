import { spawn, type ChildProcess } from 'node:child_process';

/** A tool's answer as the MCP host would hand it to the model. */
export interface ToolAnswer {
  isError: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
}

/**
 * The smallest MCP host the obedient agent needs: starts `agent-mailbox mcp` over stdio (one JSON
 * message a line), initializes without elicitation (as a host with no person at it), and calls tools.
 */
export class McpStdioClient {
  private readonly child: ChildProcess;
  private buffer = '';
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (value: Record<string, unknown>) => void; reject: (error: Error) => void }
  >();
  private stderrText = '';

  constructor(command: string, args: string[], env: Record<string, string | undefined>) {
    this.child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrText = (this.stderrText + chunk).slice(-4000);
    });
    this.child.on('exit', () => {
      for (const entry of this.waiting.values())
        entry.reject(new Error(`the MCP server exited: ${this.stderrText.trim().split('\n').pop() ?? ''}`));
      this.waiting.clear();
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      if (!line) continue;
      let message: { id?: number; result?: Record<string, unknown>; error?: { message?: string } };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        continue;
      }
      if (typeof message.id !== 'number') continue;
      const entry = this.waiting.get(message.id);
      if (!entry) continue;
      this.waiting.delete(message.id);
      if (message.error) entry.reject(new Error(message.error.message ?? 'MCP error'));
      else entry.resolve(message.result ?? {});
    }
  }

  private request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  async initialize(): Promise<void> {
    await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'agent-mailbox-drill-obedient', version: '1' },
    });
    this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }

  async call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const result = await this.request('tools/call', { name, arguments: args });
    const content = Array.isArray(result['content'])
      ? (result['content'] as Array<{ type?: string; text?: string }>)
      : [];
    return {
      isError: result['isError'] === true,
      text: content.map((part) => part.text ?? '').join('\n'),
      structured:
        typeof result['structuredContent'] === 'object' && result['structuredContent'] !== null
          ? (result['structuredContent'] as Record<string, unknown>)
          : undefined,
    };
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill('SIGTERM'), 3000);
    await exited;
    clearTimeout(timer);
  }
}
