import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ClientCapabilities,
  type CreateTaskResult,
} from '@modelcontextprotocol/sdk/types.js';
import { createClient, HandoffError, WAIT_SECONDS_MAX } from '../client/index.js';
import { getTask, getTaskResult } from './tasks.js';
import { TOOLS, type PersonLink, type ToolCall, type ToolContext } from './tools.js';
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

const TOOL_NAMES = TOOLS.map((tool) => tool.definition.name).join(', ');

const INSTRUCTIONS =
  'Ask a person for a decision or values with ask_human, send them the url it returns, then read their answer with get_answer ' +
  `(pass wait_seconds, at most ${WAIT_SECONDS_MAX}, to ask_human or get_answer to wait for it; while the answer is pending, call get_answer again). ` +
  'Every answer carries a signed receipt of what the service accepted and the link\'s deadline, link_expires_at; complete_session closes a question. ' +
  'A client that calls ask_human as a task gets the task at once; it completes when the person answers.';

interface ToolError {
  code: string;
  message: string;
  request_id?: string | null;
  reason?: string | null;
}

/** A tool error's JSON: what an agent reads, with a code to branch on. */
function errorBody({ code, message, request_id, reason }: ToolError) {
  return { error: { code, message, ...(request_id ? { request_id } : {}), ...(reason ? { reason } : {}) } };
}

/** What a call came to: the tool's result (or its task), or an error in the agent's words. */
type Outcome = { result: object } | { error: ToolError };

async function callTool(name: string, input: unknown, ctx: ToolContext, call: ToolCall, asTask: boolean): Promise<Outcome> {
  const tool = TOOLS.find((candidate) => candidate.definition.name === name);
  if (!tool) return { error: { code: 'UNKNOWN_TOOL', message: `There is no tool ${name}; the tools are ${TOOL_NAMES}.` } };
  if (asTask && !tool.startTask) return { error: { code: 'TASK_NOT_SUPPORTED', message: `${name} answers at once: call it without task (only ask_human runs as a task).` } };
  const problems = tool.check(input ?? {});
  if (problems.length > 0) return { error: { code: 'INVALID_ARGUMENTS', message: `${name}: ${problems.join('; ')}.` } };
  try {
    return { result: await (asTask ? tool.startTask!(input ?? {}, ctx, call) : tool.run(input ?? {}, ctx, call)) };
  } catch (error) {
    if (error instanceof HandoffError) return { error };
    if (call.signal.aborted) return { error: { code: 'CANCELLED', message: `${name} was cancelled.` } };
    console.error(`mcp: ${name} failed`, error);
    return { error: { code: 'INTERNAL', message: `${name} failed unexpectedly; the MCP server's log (stderr) has the details.` } };
  }
}

/** A call's outcome as tools/call answers it: a tool error is a result, as MCP has it. */
function toolResult(outcome: Outcome): CallToolResult {
  if ('error' in outcome) return { isError: true, content: [{ type: 'text', text: JSON.stringify(errorBody(outcome.error)) }] };
  const result = outcome.result as Record<string, unknown>;
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
}

/** A call's outcome as a task-augmented tools/call answers it: the task, or a JSON-RPC error (there is no task to carry a tool error). */
function taskResult(outcome: Outcome): CreateTaskResult {
  if (!('error' in outcome)) return outcome.result as CreateTaskResult;
  const body = errorBody(outcome.error);
  const code = ['INVALID_ARGUMENTS', 'UNKNOWN_TOOL', 'TASK_NOT_SUPPORTED'].includes(outcome.error.code) ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  throw new McpError(code, JSON.stringify(body), body.error);
}

/** Who answers: the package (or the service) the server runs from, by its name and version. */
export interface Implementation {
  name: string;
  version: string;
}

/** The message of the URL-mode elicitation that shows a person's link to the host's user. */
const linkMessage = (link: PersonLink) => `A person's answer is needed: "${link.title}". Open the link to answer, or pass it to whoever should.`;

/**
 * The MCP server of the tools, acting through `ctx`: served on stdio here, and by the service
 * itself at /mcp over Streamable HTTP (src/mcpEndpoint/), one server per request. `remembered`:
 * what the client declared at initialization, for a server that did not see it (the hosted one).
 */
export function mcpServer(implementation: Implementation, ctx: ToolContext, remembered?: ClientCapabilities): Server {
  const server = new Server(implementation, {
    capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
    instructions: INSTRUCTIONS,
  });
  const clientCapabilities = () => server.getClientCapabilities() ?? remembered;
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map((tool) => tool.definition) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    const progress = (update: Progress) =>
      progressToken === undefined ? Promise.resolve() : extra.sendNotification({ method: 'notifications/progress', params: { progressToken, ...update } });
    // The request goes out on this call's own stream and its reply is not awaited: a hosted
    // server lives for one request, and the reply comes on another. The link is in the result too.
    const showLink = (link: PersonLink) => {
      if (clientCapabilities()?.elicitation?.url === undefined) return;
      const params = { mode: 'url' as const, elicitationId: link.sessionId, url: link.url, message: linkMessage(link) };
      extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema).catch(() => undefined);
    };
    const asTask = request.params.task !== undefined;
    const outcome = await callTool(request.params.name, request.params.arguments, ctx, { signal: extra.signal, progress, showLink }, asTask);
    return asTask ? taskResult(outcome) : toolResult(outcome);
  });
  server.setRequestHandler(GetTaskRequestSchema, async (request, extra) => getTask(ctx, request.params.taskId, extra.signal));
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => getTaskResult(ctx, request.params.taskId, extra.signal));
  return server;
}

export async function serveMcp(env: Record<string, string | undefined>, implementation: Implementation): Promise<void> {
  const config = mcpConfig(env);
  const ctx: ToolContext = {
    client: createClient({ baseUrl: config.serviceUrl, apiKey: config.apiKey }),
    now: () => new Date(),
  };
  await mcpServer(implementation, ctx).connect(new StdioServerTransport());
  console.error(`mcp: ${TOOL_NAMES} for ${config.serviceUrl}, on stdio`);
}
