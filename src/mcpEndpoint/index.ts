import type { Capability } from '../capability.js';
import { MCP_ENDPOINT_REFUSALS } from './refusals.js';
import { mcpEndpointRoutes } from './routes.js';

/** The MCP server the service hosts at POST /mcp, its tools acting through the API itself. docs/mcp.md. */
export const mcpEndpoint: Capability = {
  name: 'mcpEndpoint',
  contract: { tag: { name: 'MCP', description: 'The MCP tools over Streamable HTTP, for agents that speak MCP.' } },
  routes: mcpEndpointRoutes,
  refusals: MCP_ENDPOINT_REFUSALS,
};
