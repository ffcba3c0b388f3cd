import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { committedContract, contractDocument } from '../../src/openapi.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let db: TestDatabase;
let t: TestApp;
beforeAll(async () => {
  db = await createTestDatabase();
  t = await startTestApp(db);
});
afterAll(async () => {
  await t.close();
  await db.drop();
});

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
