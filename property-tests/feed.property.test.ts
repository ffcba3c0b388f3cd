import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { OpenUnitOfWork } from '../eventstore/index.js';
import { appendEvents } from '../eventstore/index.js';
import { loadSession, REVISION_PUBLISHED, sessionDecider } from '../src/sessions/index.js';
import type { InteractiveInteraction } from '../src/sessions/index.js';
import { checkInteraction } from '../src/sessions/index.js';
import { untilHorizonPasses } from '../test/support/horizon.js';
import { useTestApp } from '../test/support/lifecycle.js';
import { createSession, interactive, owner } from '../test/support/sessions.js';

/**
 * Property: however Session commands commit around transactions held open (each of which
 * publishes a revision and then waits, so events committed after it have newer transactions), a
 * reader walking GET /v1/events from any cursor it was given, at any moment, lists every event
 * that committed exactly once, and none that rolled back: the feed never passes an event that
 * a transaction still in flight may commit before the ones it listed.
 */

const CLIENTS = 2;

type Op =
  | { kind: 'begin'; client: number }
  | { kind: 'commit'; client: number }
  | { kind: 'rollback'; client: number }
  | { kind: 'publish' }
  | { kind: 'read'; limit: number };

const client = fc.integer({ min: 0, max: CLIENTS - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('begin' as const), client }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('commit' as const), client }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rollback' as const), client }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'publish' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), limit: fc.integer({ min: 1, max: 3 }) }) },
);

const { t, db } = useTestApp();
const interaction = checkInteraction(interactive({ title: 'Published in a long transaction' }) as never) as InteractiveInteraction;
/** Reads made while a transaction was open behind an event committed after it began: the case the property is about. */
let readsBehindOpen = 0;

interface FeedPage {
  data: Array<{ event_id: string; session_id: string }>;
  next_cursor: string;
}

async function page(after: string | undefined, limit: number): Promise<FeedPage> {
  const res = await t.app.inject({ url: `/v1/events?limit=${limit}${after ? `&after=${after}` : ''}`, headers: owner(t) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<FeedPage>();
}

async function end(after: string | undefined): Promise<{ cursor: string | undefined; events: FeedPage['data'] }> {
  const events: FeedPage['data'] = [];
  for (;;) {
    const next = await page(after, 500);
    if (next.data.length === 0) return { cursor: next.next_cursor, events };
    events.push(...next.data);
    after = next.next_cursor;
  }
}

async function run(ops: Op[]): Promise<void> {
  await untilHorizonPasses(db.pool);
  let at = (await end(undefined)).cursor;
  const seen: FeedPage['data'] = [];
  const sessions: string[] = [];
  const open = new Map<number, OpenUnitOfWork>();
  let committedSinceOpen = false;

  const finish = async (c: number, outcome: 'commit' | 'rollback') => {
    const tx = open.get(c);
    if (!tx) return;
    open.delete(c);
    await (outcome === 'commit' ? tx.commit() : tx.rollback());
  };

  try {
    for (const step of ops) {
      if (step.kind === 'begin') {
        if (open.has(step.client)) continue;
        const { id } = await createSession(t);
        sessions.push(id);
        const tx = await t.ctx.store.begin();
        open.set(step.client, tx);
        const state = (await loadSession(tx.uow, t.ctx.streamKeys, id))!;
        await appendEvents(tx.uow, sessionDecider, id, state.version, [{ type: REVISION_PUBLISHED, at: t.ctx.clock.now().toISOString(), revision: 2, interaction }], {
          keys: t.ctx.streamKeys,
        });
        committedSinceOpen = false;
      } else if (step.kind === 'commit' || step.kind === 'rollback') {
        await finish(step.client, step.kind);
      } else if (step.kind === 'publish') {
        const { id, etag } = await createSession(t);
        sessions.push(id);
        const res = await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${id}`, headers: owner(t, { 'if-match': etag }), payload: { interaction: interactive() } });
        expect(res.statusCode, res.body).toBe(200);
        committedSinceOpen = true;
      } else {
        if (open.size > 0 && committedSinceOpen) readsBehindOpen++;
        const next = await page(at, step.limit);
        seen.push(...next.data);
        at = next.next_cursor;
      }
    }
  } finally {
    for (const c of [...open.keys()]) await finish(c, 'commit');
  }
  await untilHorizonPasses(db.pool);
  seen.push(...(await end(at)).events);

  const expected: string[] = [];
  for (const id of sessions) {
    const listed = (await t.app.inject({ url: `/v1/sessions/${id}/events`, headers: owner(t) })).json<{ events: Array<{ event_id: string }> }>().events;
    expected.push(...listed.map((e) => e.event_id));
  }
  const ids = seen.map((e) => e.event_id);
  expect(new Set(ids).size, 'an event listed twice').toBe(ids.length);
  expect([...ids].sort()).toEqual([...expected].sort());
}

it('lists every committed event once and no rolled-back one, whatever commits around transactions held open', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), run),
    {
      numRuns: 25,
      examples: [[[{ kind: 'begin', client: 0 }, { kind: 'publish' }, { kind: 'read', limit: 3 }, { kind: 'commit', client: 0 }, { kind: 'read', limit: 3 }]]],
    },
  );
  expect(readsBehindOpen).toBeGreaterThan(0);
});
