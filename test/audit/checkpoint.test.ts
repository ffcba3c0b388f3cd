import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportLog, headsHashOf, type ExportedEvent, type StreamHead } from '../../eventstore/index.js';
import { CHECKPOINTED, CHECKPOINT_STREAM, type CheckpointPayload } from '../../src/audit/checkpoint.js';
import { Checkpointer } from '../../src/audit/checkpointer.js';
import { ManualClock } from '../../src/clock.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/envelope.js';
import { untilHorizonPasses } from '../support/horizon.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession } from '../support/sessions.js';

/** Signed log checkpoints: written by any number of checkpointers, at most one per interval; served. */

const clock = new ManualClock(new Date());
const { db, t } = useTestApp({ clock });
let other: TestApp;

beforeAll(async () => {
  other = await startTestApp(db, { clock, config: t.ctx.config });
});
afterAll(async () => {
  await other.close();
});

const INTERVAL_MS = 300_000;

async function checkpointsInLog(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE stream_id = $1 AND type = $2', [CHECKPOINT_STREAM, CHECKPOINTED]);
  return rows[0]!.n;
}

async function served(): Promise<{ jws: string; payload: CheckpointPayload }> {
  const res = await t.app.inject({ url: '/.well-known/svc-log-checkpoint.json' });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store, no-transform');
  const body = res.json<{ checkpoint: string }>();
  expect(Object.keys(body)).toEqual(['checkpoint']);
  const keys = (await t.app.inject({ url: '/.well-known/svc-receipt-keys.json' })).json<JSONWebKeySet>();
  const { payload, protectedHeader } = await compactVerify(body.checkpoint, createLocalJWKSet(keys));
  expect(protectedHeader).toEqual({ alg: 'EdDSA', typ: 'svc-log-checkpoint+jwt', kid: 'test-1' });
  return { jws: body.checkpoint, payload: JSON.parse(Buffer.from(payload).toString('utf8')) as CheckpointPayload };
}

describe('log checkpoints', () => {
  it('serves 404 in the error envelope before the first, with no credential asked', async () => {
    expectError(await t.app.inject({ url: '/.well-known/svc-log-checkpoint.json' }), 404, 'NOT_FOUND');
  });

  it('two checkpointers at once write one checkpoint, signed over the heads of the whole log', async () => {
    await createSession(t);
    await createSession(t);
    await untilHorizonPasses(db.pool);
    await Promise.all([new Checkpointer(t.ctx).tick(), new Checkpointer(other.ctx).tick()]);
    expect(await checkpointsInLog()).toBe(1);

    const { payload } = await served();
    const log: ExportedEvent[] = [];
    await exportLog(t.ctx.store, {}, async (events) => void log.push(...events));
    const covered = log.filter((e) => e.stream_id !== CHECKPOINT_STREAM);
    const heads = new Map<string, StreamHead>(covered.map((e) => [e.stream_id, { version: e.stream_version, hash: e.hash }]));
    expect(payload).toEqual({
      iss: t.ctx.config.publicOrigin,
      iat: Math.floor(clock.now().getTime() / 1000),
      position: covered.at(-1)!.global_position,
      transaction_id: covered.at(-1)!.transaction_id,
      ...headsHashOf(heads),
    });
    expect(payload.streams).toBe(2);
    expect(payload.events).toBe(2);
  });

  it('writes none while the newest is younger than the interval, then one, served as the newest', async () => {
    const first = await served();
    clock.advance(INTERVAL_MS - 1_000);
    await Promise.all([new Checkpointer(t.ctx).tick(), new Checkpointer(other.ctx).tick()]);
    expect(await checkpointsInLog()).toBe(1);
    clock.advance(1_000);
    await untilHorizonPasses(db.pool);
    await Promise.all([new Checkpointer(t.ctx).tick(), new Checkpointer(other.ctx).tick()]);
    expect(await checkpointsInLog()).toBe(2);
    const second = await served();
    expect(second.jws).not.toBe(first.jws);
    // The first checkpoint's own events are in the log the second one covers.
    expect(second.payload.streams).toBe(3);
    expect(second.payload.events).toBeGreaterThan(first.payload.events);
  });
});
