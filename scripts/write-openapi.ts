import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { COMMITTED_CONTRACT, contractDocument } from '../src/openapi.js';
import { CLIENT_TYPES, clientTypesSource, MCP_SCHEMAS, mcpSchemasSource } from './client-types.js';

/**
 * Regenerates docs/openapi.json from the route schemas, and from it the client's types, the MCP
 * tools' schemas and the Python client's types (with Python 3.10 or later, `PYTHON` or python3);
 * prints the contract's SHA-256.
 */
const document = await contractDocument(loadConfig({}));
await writeFile(COMMITTED_CONTRACT, document);
await writeFile(CLIENT_TYPES, await clientTypesSource(document));
await writeFile(MCP_SCHEMAS, mcpSchemasSource(document));
const python = spawnSync(process.env.PYTHON ?? 'python3', [fileURLToPath(new URL('../clients/python/tools/generate_types.py', import.meta.url))], { stdio: 'inherit' });
if (python.status !== 0) throw new Error(`The Python client's types were not regenerated (${python.error?.message ?? `exit ${python.status}`}).`);
console.log(`${createHash('sha256').update(document).digest('hex')}  docs/openapi.json`);
