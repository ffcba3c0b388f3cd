import { readdir, readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';

/**
 * The client and the MCP server are published on their own (src/client/package.json): they import
 * nothing of the service's, and the package depends on exactly the packages they import.
 */

const SRC = new URL('../../src/', import.meta.url);

type Manifest = { dependencies: Record<string, string> };
const manifest = async (path: string) => JSON.parse(await readFile(new URL(path, SRC), 'utf8')) as Manifest;

/** The packages a folder's modules import (Node's own aside), and every relative import that leaves the folder. */
async function importsOf(folder: string): Promise<{ packages: Set<string>; outside: Set<string> }> {
  const packages = new Set<string>();
  const outside = new Set<string>();
  for (const file of (await readdir(new URL(folder, SRC))).filter((name) => name.endsWith('.ts'))) {
    const source = await readFile(new URL(`${folder}/${file}`, SRC), 'utf8');
    for (const [, specifier] of source.matchAll(/^(?:import|export)[^;]*? from '([^']+)'/gm)) {
      if (specifier!.startsWith('../')) outside.add(specifier!);
      else if (!specifier!.startsWith('./') && !specifier!.startsWith('node:')) packages.add(specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!);
    }
  }
  return { packages, outside };
}

it('imports only its own files and its dependencies; the MCP server, the client besides', async () => {
  const client = await importsOf('client');
  const mcp = await importsOf('mcp');
  expect([...client.outside]).toEqual([]);
  expect([...mcp.outside]).toEqual(['../client/index.js']);
  expect([...client.packages].sort()).toEqual(['canonicalize', 'jose', 'lru-cache', 'standardwebhooks']);
  expect([...mcp.packages].sort()).toEqual(['@modelcontextprotocol/sdk', 'ajv']);
});

it('depends on exactly what it imports, in the versions this checkout installs and tests', async () => {
  const root = await manifest('../package.json');
  const { dependencies } = await manifest('client/package.json');
  const imported = new Set([...(await importsOf('client')).packages, ...(await importsOf('mcp')).packages]);
  expect(Object.keys(dependencies).sort()).toEqual([...imported].sort());
  for (const [name, range] of Object.entries(dependencies)) expect(range, name).toBe(root.dependencies[name]);
});
