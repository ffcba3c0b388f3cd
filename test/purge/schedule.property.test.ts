import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { readStream } from '../../eventstore/index.js';
import { DAY, HOUR, ManualClock } from '../../src/clock.js';
import { PurgeWorker, eraseSession, foldLifetime, purgeDeadline } from '../../src/purge/index.js';
import { useTestApp } from '../support/lifecycle.js';
import { interactive, owner } from '../support/sessions.js';
import { startTrial } from '../trials/support.js';
import { hasView, purgeCounts } from './support.js';

/**
 * Model-based: after any sequence of creates (owner key, developer key, trial), completions,
 * erasures and moves of the clock with the purger run, each Session is purged exactly when the
 * model says (erased, or its deadline has come), once, its rows gone with it; and the schedule the
 * purge projection folded equals the pure deadline of each live Session's stream.
 */

const DEVELOPER_KEY = 'svc_sk_test_purge_property_key_0123456789';

const clock = new ManualClock('2026-01-01T00:00:00.000Z');
const { db, t } = useTestApp({ clock });
beforeAll(() => {
  t.ctx.credentialResolvers.push(async (token) =>
    token === DEVELOPER_KEY ? { workspaceId: 'wks_property', credentialId: 'key_prop', kind: 'developer_key', linkLifetimeHours: 168, retentionHours: 168 } : undefined,
  );
});

type Kind = 'owner' | 'developer' | 'trial';

/** What the model knows of a Session: enough to say when it must be purged. */
interface Modelled {
  id: string;
  kind: Kind;
  createdAt: number;
  completedAt: number | null;
  erased: boolean;
}

type Step =
  | { kind: 'create'; as: Kind }
  | { kind: 'complete'; pick: number }
  | { kind: 'erase'; pick: number }
  | { kind: 'advance'; hours: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('create' as const), as: fc.constantFrom<Kind>('owner', 'developer', 'trial') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('complete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('erase' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), hours: fc.integer({ min: 0, max: 900 }) }) },
);

const LINK_HOURS: Record<Kind, number> = { owner: 720, developer: 168, trial: 1 };
const RETENTION_HOURS: Record<Kind, number> = { owner: 720, developer: 168, trial: 24 };
const headersOf = (kind: Kind) => (kind === 'developer' ? { authorization: `Bearer ${DEVELOPER_KEY}` } : owner(t));

/** The rule, restated: the earlier of completion and link expiry plus the retention; a trial at its link expiry plus 24 hours. */
function modelDeadline(s: Modelled): number {
  const linkExpires = s.createdAt + LINK_HOURS[s.kind] * HOUR;
  const ended = s.kind === 'trial' || s.completedAt === null ? linkExpires : Math.min(s.completedAt, linkExpires);
  return ended + RETENTION_HOURS[s.kind] * HOUR;
}

/** When the purger last ran: a Session is purged by then if it was erased or due by then. */
let lastDrainAt = 0;
const wasPurged = (s: Modelled): boolean => s.erased || modelDeadline(s) <= lastDrainAt;

async function drain(): Promise<void> {
  await new PurgeWorker(t.ctx).drain();
  lastDrainAt = clock.now().getTime();
}

async function apply(step: Step, sessions: Modelled[]): Promise<void> {
  const now = clock.now().getTime();
  if (step.kind === 'create') {
    const id =
      step.as === 'trial'
        ? (await startTrial(t)).id
        : (await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: headersOf(step.as), payload: { interaction: interactive() } })).json<{ id: string }>().id;
    sessions.push({ id, kind: step.as, createdAt: now, completedAt: null, erased: false });
    return;
  }
  if (step.kind === 'advance') {
    clock.advance(step.hours * HOUR);
    await drain();
    return;
  }
  const s = sessions[step.pick % sessions.length];
  if (!s) return;
  if (step.kind === 'erase') {
    const expected = wasPurged(s) ? 'already_purged' : 'purged';
    const outcome = await eraseSession(t.ctx, s.id);
    expect('refused' in outcome ? outcome.refused : 'purged').toBe(expected);
    s.erased = true;
    return;
  }
  if (s.kind === 'trial') return; // a trial Session is never completed
  const headers = headersOf(s.kind);
  const read = await t.app.inject({ url: `/v1/sessions/${s.id}`, headers });
  if (read.statusCode !== 200) return;
  const done = await t.app.inject({ method: 'POST', url: `/v1/sessions/${s.id}/complete`, headers: { ...headers, 'if-match': read.headers.etag as string } });
  if (done.statusCode === 200 && s.completedAt === null) s.completedAt = now;
}


it('each Session is purged exactly when its deadline comes or it is erased, once; the schedule is the fold of the log', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 15 }), async (steps) => {
      // Each run a year on: earlier runs' trials and limits are out of every window.
      clock.advance(365 * DAY);
      lastDrainAt = 0;
      const sessions: Modelled[] = [];
      for (const s of steps) await apply(s, sessions);
      await drain();
      const counts = await purgeCounts(db, sessions.map((s) => s.id));
      for (const s of sessions) {
        const purged = wasPurged(s);
        expect(counts.get(s.id), `${s.kind} Session purged`).toBe(purged ? 1 : 0);
        expect(await hasView(db, s.id)).toBe(!purged);
        const life = foldLifetime(await readStream(db.pool, s.id))!;
        const { rows } = await db.pool.query<{ due_at: Date; reason: string }>(`SELECT due_at, reason FROM purge_schedule WHERE session_id = $1`, [s.id]);
        const deadline = purgeDeadline(life);
        expect(rows).toEqual(deadline ? [{ due_at: deadline.dueAt, reason: deadline.reason }] : []);
        if (!purged) expect(deadline!.dueAt.getTime()).toBe(modelDeadline(s));
      }
    }),
    {
      numRuns: 20,
      // One run that reaches every reason, so the check below never rests on the random draws.
      examples: [
        [
          [
            { kind: 'create', as: 'owner' },
            { kind: 'erase', pick: 0 },
            { kind: 'create', as: 'owner' },
            { kind: 'create', as: 'trial' },
            { kind: 'advance', hours: 900 },
            { kind: 'advance', hours: 900 },
          ],
        ],
      ],
    },
  );
  const { rows } = await db.pool.query<{ reason: string }>(`SELECT DISTINCT data::jsonb->>'reason' AS reason FROM events WHERE type = 'session.purged' ORDER BY 1`);
  expect(rows.map((r) => r.reason)).toEqual(['erasure', 'retention', 'trial_ended']);
}, 300_000);
