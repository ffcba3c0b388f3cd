import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { CLIENT_TYPES, clientTypesSource, MCP_SCHEMAS, mcpSchemasSource } from '../../scripts/client-types.js';
import { loadConfig } from '../../src/config.js';
import { committedContract, contractDocument } from '../../src/openapi.js';
import { useTestApp } from '../support/lifecycle.js';

const { t } = useTestApp();

it('serves the OpenAPI 3.1.0 contract of the Owner API, version 0.1.0', async () => {
  const res = await t.app.inject({ url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store, no-transform');
  const document = res.json();
  expect(document.openapi).toBe('3.1.0');
  expect(document.info).toMatchObject({ title: 'Owner API', version: '0.1.0' });
  for (const path of ['/health/live', '/health/ready', '/version']) expect(Object.keys(document.paths)).toContain(path);
  expect(Object.keys(document.paths)).not.toContain('/openapi.json');
});

it('has not drifted from the committed docs/openapi.json (regenerate: npx tsx scripts/write-openapi.ts)', async () => {
  const committed = await committedContract();
  expect(await contractDocument(loadConfig({}))).toBe(committed);
  expect((await t.app.inject({ url: '/openapi.json' })).json()).toEqual(JSON.parse(committed));
});

it('has generated the client types from the committed contract (regenerate: npx tsx scripts/write-openapi.ts)', async () => {
  expect(await readFile(CLIENT_TYPES, 'utf8')).toBe(await clientTypesSource(await committedContract()));
});

it("has generated the MCP tools' schemas from the committed contract (regenerate: npx tsx scripts/write-openapi.ts)", async () => {
  expect(await readFile(MCP_SCHEMAS, 'utf8')).toBe(mcpSchemasSource(await committedContract()));
});
