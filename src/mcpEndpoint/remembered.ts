import { randomBytes } from 'node:crypto';
import { ClientCapabilitiesSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

/**
 * What the hosted server keeps of a client between its stateless requests: the capabilities it
 * declared at initialization that the tools act on (URL-mode elicitation). The client carries
 * them itself, in the Mcp-Session-Id the initialization answers with and MCP clients send back on
 * every request: nothing is stored, so any process reads them. A client that alters its ID
 * changes only what it is sent itself.
 */

const SESSION_ID = /^[A-Za-z0-9_-]{16}\.([A-Za-z0-9_-]{1,200})$/;

/** Of all a client declares, what the tools act on. */
function kept(capabilities: ClientCapabilities): ClientCapabilities {
  return capabilities.elicitation?.url ? { elicitation: { url: {} } } : {};
}

/** A session ID for the initialization of a client that declared `capabilities`: unique, and carrying what is kept of them. */
export function sessionIdFor(capabilities: ClientCapabilities): string {
  return `${randomBytes(12).toString('base64url')}.${Buffer.from(JSON.stringify(kept(capabilities))).toString('base64url')}`;
}

/** The capabilities a session ID carries; none from a missing or malformed one. */
export function rememberedCapabilities(sessionId: string | undefined): ClientCapabilities | undefined {
  const match = sessionId === undefined ? null : SESSION_ID.exec(sessionId);
  if (!match) return undefined;
  try {
    const parsed = ClientCapabilitiesSchema.safeParse(JSON.parse(Buffer.from(match[1]!, 'base64url').toString()));
    return parsed.success ? kept(parsed.data) : undefined;
  } catch {
    return undefined;
  }
}
