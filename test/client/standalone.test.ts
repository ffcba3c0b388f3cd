import { readdir, readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';

/**
 * The client and the MCP server are published on their own (src/client/package.json): they import
 * nothing of the service's, and the package depends on exactly the packages they import.
 */

const SRC = new URL('../../src/', import.meta.url);

type Manifest = {
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const manifest = async (path: string) => JSON.parse(await readFile(new URL(path, SRC), 'utf8')) as Manifest;

/**
 * The packages a folder's modules import (Node's own aside), every relative import that leaves the
 * folder, and the packages loaded only when present (a dynamic import whose failure is caught).
 */
async function importsOf(folder: string): Promise<{ packages: Set<string>; outside: Set<string>; optional: Set<string> }> {
  const packages = new Set<string>();
  const outside = new Set<string>();
  const optional = new Set<string>();
  for (const file of (await readdir(new URL(folder, SRC))).filter((name) => name.endsWith('.ts'))) {
    const source = await readFile(new URL(`${folder}/${file}`, SRC), 'utf8');
    for (const [, specifier] of source.matchAll(/\bimport\('([^']+)'\)\.catch\(/g)) optional.add(specifier!);
    for (const [, specifier] of source.matchAll(/^(?:import|export)[^;]*? from '([^']+)'/gm)) {
      if (specifier!.startsWith('../')) outside.add(specifier!);
      else if (!specifier!.startsWith('./') && !specifier!.startsWith('node:')) packages.add(specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!);
    }
  }
  return { packages, outside, optional };
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

it('declares what it loads only when present as optional peers, which it never imports outright', async () => {
  const root = await manifest('../package.json');
  const { peerDependencies = {}, peerDependenciesMeta = {} } = await manifest('client/package.json');
  const { packages, optional } = await importsOf('client');
  expect([...optional]).toEqual(['@opentelemetry/api']);
  expect(Object.keys(peerDependencies).sort()).toEqual([...optional].sort());
  for (const name of optional) {
    expect(packages.has(name), name).toBe(false);
    expect(peerDependenciesMeta[name]?.optional, name).toBe(true);
    expect(peerDependencies[name], name).toBe(root.dependencies[name]);
  }
});
