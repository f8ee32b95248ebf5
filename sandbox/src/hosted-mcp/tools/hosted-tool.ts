import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { HostedCaller } from '../endpoint/hosted-caller.js';
import type { HostedToolDeps } from './hosted-tool-deps.js';

/** What a tool call runs with: the caller as verified on this request, and the service around it. */
export interface ToolContext {
  caller: HostedCaller;
  deps: HostedToolDeps;
  /** Aborts when the client cancels the call or goes away. */
  signal: AbortSignal;
}

/** A tool's result: data for programs (structuredContent) and, when it differs, the text a model reads. */
export interface ToolOutcome {
  data: Record<string, unknown>;
  /** Defaults to the data as JSON. */
  text?: string;
  /** A result that reports a failure inside a completed call (a JMAP method error). */
  isError?: boolean;
}

/** One hosted tool (spec §2.8): name, description for the model, zod input, all four annotations. */
export interface HostedTool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** At most 1,024 characters (OpenAI's function description limit). */
  description: string;
  input: S;
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>>;
  run(input: z.output<S>, ctx: ToolContext): Promise<ToolOutcome>;
}

/** Identity helper that keeps a tool's input type tied to its run function. */
export function defineHostedTool<S extends z.ZodObject>(tool: HostedTool<S>): HostedTool<S> {
  return tool;
}
