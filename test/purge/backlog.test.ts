import { expect, it } from 'vitest';
import { catchUpAll } from '../../projections/index.js';
import { HOUR, ManualClock } from '../../src/clock.js';
import { OVERDUE_AFTER_MS } from '../../src/purge/backlog.js';
import { purgeBacklog } from '../../src/purge/index.js';
import { purgeScheduleProjection } from '../../src/purge/projection.js';
import { useTestApp } from '../support/lifecycle.js';
import { createSession } from '../support/sessions.js';

/** The backlog an operator watches (status, /metrics): Sessions past their deadline, and long past it. */

const T0 = Date.parse('2026-05-01T00:00:00.000Z');
const clock = new ManualClock(new Date(T0));
const { db, t } = useTestApp({ clock });

it('counts a Session due from its deadline on, and overdue once a purger should long have purged it', async () => {
  await createSession(t);
  await catchUpAll(t.ctx.store, purgeScheduleProjection);
  // An owner-key Session never completed: its link expires after 720 h, its content 720 h later.
  const deadline = T0 + 1440 * HOUR;
  const at = (ms: number) => purgeBacklog(db.pool, new Date(ms));
  expect(await at(deadline - 1)).toEqual({ due: 0, overdue: 0 });
  expect(await at(deadline)).toEqual({ due: 1, overdue: 0 });
  expect(await at(deadline + OVERDUE_AFTER_MS - 1)).toEqual({ due: 1, overdue: 0 });
  expect(await at(deadline + OVERDUE_AFTER_MS)).toEqual({ due: 1, overdue: 1 });
});
