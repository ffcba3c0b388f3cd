import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createClient, HandoffError, WAIT_SECONDS_MAX } from '../client/index.js';
import { TOOLS, type ToolCall, type ToolContext } from './tools.js';
import type { Progress } from './wait.js';

/**
 * The Model Context Protocol server over stdio (`npm start -- mcp` in this checkout, `svc-handoff
 * mcp` from the package): the tools of tools.ts, acting through the client on the service at
 * SVC_URL with SVC_API_KEY. stdout carries the protocol and nothing else; anything for people goes
 * to stderr. Like the client, it imports nothing of the service, so it is packed with it.
 *
 * Built on the SDK's low-level Server: its high-level McpServer declares tools with zod schemas,
 * while these tools declare plain JSON Schema, checked with Ajv, with messages written for agents.
 */

export interface McpConfig {
  serviceUrl: string;
  apiKey: string;
}

function mcpConfig(env: Record<string, string | undefined>): McpConfig {
  const serviceUrl = env.SVC_URL;
  const apiKey = env.SVC_API_KEY;
  if (!serviceUrl || !/^https?:\/\/[^/]/.test(serviceUrl) || !URL.canParse(serviceUrl)) {
    throw new Error('mcp: set SVC_URL to the service URL, for example http://127.0.0.1:8080');
  }
  if (!apiKey) throw new Error('mcp: set SVC_API_KEY to the owner key or a developer API key (svc_sk_...)');
  return { serviceUrl, apiKey };
}

const INSTRUCTIONS =
  'Ask a person for a decision or values with ask_human, send them the url it returns, then read their answer with get_answer ' +
  `(pass wait_seconds, at most ${WAIT_SECONDS_MAX}, to ask_human or get_answer to wait for it; while the answer is pending, call get_answer again). ` +
  'Every answer carries a signed receipt of what the service accepted.';

/** A tool error: the JSON an agent reads, with a code to branch on. */
function failed(error: { code: string; message: string; request_id?: string | null; reason?: string | null }): CallToolResult {
  const { code, message, request_id, reason } = error;
  const body = { error: { code, message, ...(request_id ? { request_id } : {}), ...(reason ? { reason } : {}) } };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

async function callTool(name: string, input: unknown, ctx: ToolContext, call: ToolCall): Promise<CallToolResult> {
  const tool = TOOLS.find((candidate) => candidate.definition.name === name);
  if (!tool) return failed({ code: 'UNKNOWN_TOOL', message: `There is no tool ${name}; the tools are ${TOOLS.map((t) => t.definition.name).join(', ')}.` });
  const problems = tool.check(input ?? {});
  if (problems.length > 0) return failed({ code: 'INVALID_ARGUMENTS', message: `${name}: ${problems.join('; ')}.` });
  try {
    const result = (await tool.run(input ?? {}, ctx, call)) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  } catch (error) {
    if (error instanceof HandoffError) return failed(error);
    if (call.signal.aborted) return failed({ code: 'CANCELLED', message: `${name} was cancelled.` });
    console.error(`mcp: ${name} failed`, error);
    return failed({ code: 'INTERNAL', message: `${name} failed unexpectedly; the MCP server's log (stderr) has the details.` });
  }
}

/** Who answers: the package (or the service) the server runs from, by its name and version. */
export interface Implementation {
  name: string;
  version: string;
}

/**
 * The MCP server of the tools, acting through `ctx`: served on stdio here, and by the service
 * itself at /mcp over Streamable HTTP (src/mcpEndpoint/), one server per request.
 */
export function mcpServer(implementation: Implementation, ctx: ToolContext): Server {
  const server = new Server(implementation, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map((tool) => tool.definition) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    const progress = (update: Progress) =>
      progressToken === undefined ? Promise.resolve() : extra.sendNotification({ method: 'notifications/progress', params: { progressToken, ...update } });
    return callTool(request.params.name, request.params.arguments, ctx, { signal: extra.signal, progress });
  });
  return server;
}

export async function serveMcp(env: Record<string, string | undefined>, implementation: Implementation): Promise<void> {
  const config = mcpConfig(env);
  const ctx: ToolContext = {
    client: createClient({ baseUrl: config.serviceUrl, apiKey: config.apiKey }),
    now: () => new Date(),
  };
  await mcpServer(implementation, ctx).connect(new StdioServerTransport());
  console.error(`mcp: ask_human, get_answer and list_events for ${config.serviceUrl}, on stdio`);
}
