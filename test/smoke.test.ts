import { afterAll, beforeAll, expect, it } from 'vitest';
import { append, readStream } from '../eventstore/index.js';
import { withTransaction } from '../eventstore/index.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { startTestApp, type TestApp } from './support/app.js';

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

it('appends and reads a stream', async () => {
  await withTransaction(db.pool, (tx) => append(tx, 's1', 0, [{ type: 'a', data: { x: 1 } }, { type: 'b', data: {} }]));
  const events = await readStream(db.pool, 's1');
  expect(events.map((e) => e.streamVersion)).toEqual([1, 2]);
});

it('is ready', async () => {
  const res = await t.app.inject({ url: '/health/ready' });
  expect(res.statusCode).toBe(200);
});
