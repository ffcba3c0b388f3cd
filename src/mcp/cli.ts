#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { serveMcp, type Implementation } from './server.js';

/**
 * The package's command: `svc-handoff mcp` serves the MCP server on stdio (see server.ts). It runs
 * from the packed package, whose manifest sits one folder up (in this checkout, `npm start -- mcp`
 * serves the same server).
 */

const USAGE = 'usage: svc-handoff mcp    MCP server on stdio for agents (set SVC_URL and SVC_API_KEY)';

if (process.argv.length !== 3 || process.argv[2] !== 'mcp') {
  console.error(USAGE);
  process.exit(2);
}
const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as Implementation;
try {
  await serveMcp(process.env, { name: manifest.name, version: manifest.version });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
