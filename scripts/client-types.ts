import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { fileURLToPath } from 'node:url';

/** Where the client's types live: generated from the contract, never edited by hand. */
export const CLIENT_TYPES = fileURLToPath(new URL('../src/client/openapi.ts', import.meta.url));

/**
 * The TypeScript types of a contract document, as `openapi-typescript` writes them. An object
 * schema without properties (a Session's `data`, a `source`) is typed as holding unknown values,
 * not as an empty record, so readers can index it.
 */
export async function clientTypesSource(document: string): Promise<string> {
  const ast = await openapiTS(document, { emptyObjectsUnknown: true });
  return `${COMMENT_HEADER}// Regenerate with \`npx tsx scripts/write-openapi.ts\` after a route changes.\n\n${astToString(ast)}`;
}

/** Where the MCP tools' schemas taken from the contract live: generated, never edited by hand. */
export const MCP_SCHEMAS = fileURLToPath(new URL('../src/mcp/contract.ts', import.meta.url));

/**
 * The schemas of the contract an MCP tool declares as its own input or output, as a module: the MCP server
 * is packed with the client, without the contract document beside it.
 */
export function mcpSchemasSource(document: string): string {
  const { components } = JSON.parse(document) as {
    components: { schemas: { SessionEventsResponse: { properties: { events: unknown } }; NotifyPlan: { properties: { email: unknown } } } };
  };
  return [
    '// Generated from docs/openapi.json by scripts/write-openapi.ts: do not edit by hand.',
    '',
    '/** The events of a Session, as GET /v1/sessions/{id}/events lists them. */',
    `export const sessionEventsSchema = ${JSON.stringify(components.schemas.SessionEventsResponse.properties.events, null, 2)} as const;`,
    '',
    "/** The addresses a Session's notification plan emails (NotifyPlan's `email`). */",
    `export const notifyEmailSchema = ${JSON.stringify(components.schemas.NotifyPlan.properties.email, null, 2)} as const;`,
    '',
  ].join('\n');
}
