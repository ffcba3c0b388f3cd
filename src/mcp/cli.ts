#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { serveMcp, type Implementation } from './server.js';

/**
 * The package's command: `svc-handoff mcp` serves the MCP server on stdio (see server.ts). It runs
 * from the packed package, whose manifest sits one folder up (in this checkout, `npm start -- mcp`
 * serves the same server).
 */

const USAGE = `usage: svc-handoff mcp    MCP server on stdio for agents (set SVC_URL and SVC_API_KEY)
       svc-handoff --help   this text`;

const [command, ...rest] = process.argv.slice(2);
if (rest.length === 0 && (command === '--help' || command === '-h' || command === 'help')) {
  // Asked for: the usage on stdout, and success.
  console.log(USAGE);
  process.exit(0);
}
if (rest.length > 0 || command !== 'mcp') {
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
