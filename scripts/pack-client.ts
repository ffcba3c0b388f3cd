import { relative } from 'node:path';
import { BUILD, packClient } from './client-package.js';

/** `npm run pack:client`: the package of the client and its MCP server, as build/svc-handoff-<version>.tgz. */
const packed = await packClient(BUILD);
for (const file of packed.files) console.log(`${String(file.size).padStart(8)}  ${file.path}`);
console.log(`${packed.name}@${packed.version}: ${packed.files.length} files, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked`);
console.log(relative(process.cwd(), packed.tarball));
