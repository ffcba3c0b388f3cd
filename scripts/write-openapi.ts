import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { loadConfig } from '../src/config.js';
import { COMMITTED_CONTRACT, contractDocument } from '../src/openapi.js';
import { CLIENT_TYPES, clientTypesSource, MCP_SCHEMAS, mcpSchemasSource } from './client-types.js';

/** Regenerates docs/openapi.json from the route schemas, the client's types and the MCP tools' schemas from it; prints the contract's SHA-256. */
const document = await contractDocument(loadConfig({}));
await writeFile(COMMITTED_CONTRACT, document);
await writeFile(CLIENT_TYPES, await clientTypesSource(document));
await writeFile(MCP_SCHEMAS, mcpSchemasSource(document));
console.log(`${createHash('sha256').update(document).digest('hex')}  docs/openapi.json`);
