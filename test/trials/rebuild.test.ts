import { expect, it } from 'vitest';
import { rebuild } from '../../projections/index.js';
import { ManualClock } from '../../src/clock.js';
import { trialsProjection } from '../../src/trials/projection.js';
import { useTestApp } from '../support/lifecycle.js';
import { addSession, newClient, postTrial, startTrial } from './support.js';

/** The trials projection dropped and rebuilt from the log is the live one, row for row. */

const clock = new ManualClock('2026-08-01T00:00:00.000Z');
const { db, t } = useTestApp({ clock });

const dump = async () =>
  Object.fromEntries(
    await Promise.all(
      trialsProjection.tables.map(async (table) => {
        const { rows } = await db.pool.query(`SELECT row_to_json(x)::text AS row FROM ${table} x ORDER BY 1`);
        return [table, rows.map((r) => r.row as string).sort()] as const;
      }),
    ),
  );

it('rebuilds trials, trial_sessions and trial_admissions equal to the live rows', async () => {
  const client = newClient();
  for (let i = 0; i < 3; i++) {
    const trial = await startTrial(t, client);
    clock.advance(60_000);
    await addSession(t, trial.credential, client);
  }
  expect((await postTrial(t, { from: client })).statusCode).toBe(429);
  const live = await dump();
  expect(live.trials).toHaveLength(3);
  expect(live.trial_sessions).toHaveLength(6);
  expect(live.trial_admissions).toHaveLength(3);
  expect(await rebuild(t.ctx.store, trialsProjection, { async: false })).toBeGreaterThanOrEqual(12);
  expect(await dump()).toEqual(live);
});
