import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { loadConfig } from '../src/config.js';
import { COMMITTED_CONTRACT, contractDocument } from '../src/openapi.js';
import { CLIENT_TYPES, clientTypesSource } from './client-types.js';

/** Regenerates docs/openapi.json from the route schemas, and the client's types from it; prints the contract's SHA-256. */
const document = await contractDocument(loadConfig({}));
await writeFile(COMMITTED_CONTRACT, document);
await writeFile(CLIENT_TYPES, await clientTypesSource(document));
console.log(`${createHash('sha256').update(document).digest('hex')}  docs/openapi.json`);
