import type { RefusalTable } from '../http/refusal.js';

/** The hosted MCP endpoint is stateless: only POST reaches it. */
export const MCP_ENDPOINT_REFUSALS: RefusalTable<{ refused: 'mcp_method_not_allowed' }> = {
  mcp_method_not_allowed: {
    status: 405,
    code: 'ACTION_NOT_ALLOWED',
    message: 'The MCP endpoint is stateless: send each message with POST /mcp.',
    reason: 'method_not_allowed',
  },
};
