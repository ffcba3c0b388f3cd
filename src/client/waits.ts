/**
 * The longest a request may be held waiting (`Prefer: wait=N`), in seconds. MCP clients give up
 * on a call they hear nothing of for about a minute, and an agent's HTTP stack often does too, so
 * a held request answers within that, with room for the reads around the wait. The service clamps
 * to it, and the client and the MCP server never ask for more: one value for the three, here,
 * because the client is packed on its own and imports nothing of the service.
 */
export const WAIT_SECONDS_MAX = 55;
