import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { InitializeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AUTH_REFUSALS, bearerToken, ownerOf, requireOwner } from '../auth/index.js';
import { createClient } from '../client/index.js';
import { operation } from '../http/contract.js';
import { JSON_BODY_FAULTS, STORE_FAULTS } from '../http/edgeRefusals.js';
import { refusalError } from '../http/refusal.js';
import { mcpServer } from '../mcp/server.js';
import { publicKeySet } from '../receiptKeys.js';
import { SERVICE_VERSION } from '../version.js';
import type { ServiceContext } from '../serviceContext.js';
import { headersOf, injectedFetch } from './inject.js';
import { MCP_ENDPOINT_REFUSALS } from './refusals.js';
import { rememberedCapabilities, sessionIdFor } from './remembered.js';

/**
 * The MCP server the service hosts: POST /mcp speaks MCP's Streamable HTTP transport, with the
 * owner key or a developer API key as Bearer, so an agent needs a URL and a key and nothing
 * installed. The tools are the stdio server's own (src/mcp/), acting through the typed client;
 * here the client's requests go into this very app (inject) with the caller's own credential, so
 * every rule of the REST routes (workspace, quotas, refusals) applies to them unchanged.
 *
 * Stateless, as the SDK advises for a service that runs several API processes: each POST gets its
 * own server and transport, and nothing outlives the request, so any process answers any request.
 * A tool's wait (at most 55 s, with progress) streams on that POST's response (SSE); a task is the
 * Session itself (src/mcp/tasks.ts). The Mcp-Session-Id the initialization answers with carries
 * what the client declared (remembered.ts); there is no session to resume or end, so GET (a
 * stream of the server's own messages) and DELETE are 405.
 */

const IMPLEMENTATION = { name: 'svc-handoff', version: SERVICE_VERSION } as const;

const mcpRequest = {
  type: 'object',
  description: 'One JSON-RPC 2.0 message of the Model Context Protocol (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http).',
} as const;

const EXAMPLE_SESSION_ID = 'ses_01JQ8Z5XK3B7W2C9D4E6F8G0HJ';
const exampleEvents = JSON.stringify({ session_id: EXAMPLE_SESSION_ID, events: [] });

/** A 400 is the envelope, or MCP's own JSON-RPC error object: the route says which itself. */
const NOT_JSON_RPC =
  'A body that is not JSON (the error envelope), or a message that is not JSON-RPC (a JSON-RPC error object, as MCP defines it; so are 406 without the Accept above and 415).';

const mcpOperation = operation({
  operationId: 'postMcpMessage',
  summary: 'Send one MCP message to the hosted MCP server (Streamable HTTP)',
  request: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_events', arguments: { session_id: EXAMPLE_SESSION_ID } } },
  answers: {
    200: {
      description: 'The answer to a request: its progress notifications, then its response, each a JSON-RPC message in a server-sent event.',
      example: `event: message\ndata: ${JSON.stringify({
        result: { content: [{ type: 'text', text: exampleEvents }], structuredContent: JSON.parse(exampleEvents) },
        jsonrpc: '2.0',
        id: 1,
      })}\n\n`,
    },
    202: { description: 'A notification or a response of the agent, accepted; no body.' },
    400: { description: NOT_JSON_RPC },
  },
  refuses: [AUTH_REFUSALS.owner_credential_required, ...JSON_BODY_FAULTS, ...STORE_FAULTS],
});

const notAllowed = (_request: FastifyRequest, reply: FastifyReply) => {
  reply.header('allow', 'POST');
  throw refusalError(MCP_ENDPOINT_REFUSALS, { refused: 'mcp_method_not_allowed' });
};

export async function mcpEndpointRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const receiptKeys = ctx.receiptKeys && { keys: publicKeySet(ctx.receiptKeys) };
  requireOwner(app, ctx);

  app.post(
    '/mcp',
    {
      schema: {
        ...mcpOperation,
        description:
          'The tools ask_human, get_answer, list_events and complete_session over the Model Context Protocol, acting in the workspace of the Bearer key (owner key or developer API key). ' +
          'Accept must name application/json and text/event-stream; the answer to a request is an SSE stream (text/event-stream) carrying its progress notifications and its result, ' +
          'or 202 for a notification or a response. The answer to initialize carries an Mcp-Session-Id for the client to send back (it carries what the client declared; nothing is stored). ' +
          'Refusals of the API (a quota included) come back as tool errors carrying its error code. docs/mcp.md.',
        security: [{ bearer: [] }],
        body: mcpRequest,
        response: {
          200: { content: { 'text/event-stream': { schema: { type: 'string' } } } },
          202: { type: 'null' },
          400: { description: NOT_JSON_RPC, type: 'object' },
        },
      },
    },
    async (request, reply) => {
      const client = createClient({
        baseUrl: ctx.config.publicOrigin,
        apiKey: bearerToken(request)!,
        fetch: injectedFetch(app, request.ip),
        // The credential's workspace is known: receipts are verified for it without asking GET /v1/me.
        workspaceId: ownerOf(request).workspaceId,
        // The process's own key set, made once: no request reads it again through the app.
        ...(receiptKeys ? { receiptKeys } : {}),
      });
      const sessionId = request.headers['mcp-session-id'];
      const remembered = rememberedCapabilities(typeof sessionId === 'string' ? sessionId : undefined);
      const server = mcpServer(IMPLEMENTATION, { client, now: () => ctx.clock.now() }, remembered);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      // Once the answer is sent, or the agent has gone: a tool still waiting is cancelled.
      reply.raw.once('close', () => void server.close());
      const answer = await transport.handleRequest(new Request(new URL(request.url, ctx.config.publicOrigin), { method: 'POST', headers: headersOf(request.headers) }), {
        parsedBody: request.body,
      });
      const initialize = InitializeRequestSchema.safeParse(request.body);
      if (initialize.success && answer.ok) answer.headers.set('mcp-session-id', sessionIdFor(initialize.data.params.capabilities));
      return reply.send(answer);
    },
  );

  app.get('/mcp', { schema: { hide: true } }, notAllowed);
  app.delete('/mcp', { schema: { hide: true } }, notAllowed);
}
