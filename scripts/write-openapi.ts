import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { loadConfig } from '../src/config.js';
import { COMMITTED_CONTRACT, contractDocument } from '../src/openapi.js';

/** Regenerates docs/openapi.json from the route schemas and prints its SHA-256. */
const document = await contractDocument(loadConfig({}));
await writeFile(COMMITTED_CONTRACT, document);
console.log(`${createHash('sha256').update(document).digest('hex')}  docs/openapi.json`);
