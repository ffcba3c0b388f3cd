import type { Reader } from '../../eventstore/index.js';
import type { BacklogGauge } from '../capability.js';
import * as sql from './sql.js';

export interface PurgeBacklog {
  /** Sessions whose purge deadline has passed. */
  due: number;
  /** Of those, the ones still unpurged well after it: the purger is not keeping up. */
  overdue: number;
}

/** Past its deadline by this long, a Session is overdue: five of the purger's safety-net polls. */
export const OVERDUE_AFTER_MS = 5 * 60_000;

/** What the purge schedule holds past its deadlines, for `status` and `/metrics`. */
export async function purgeBacklog(db: Reader, now: Date): Promise<PurgeBacklog> {
  const { rows } = await db.query<PurgeBacklog>(sql.BACKLOG, [now, OVERDUE_AFTER_MS]);
  return rows[0]!;
}

export const PURGE_GAUGES: readonly BacklogGauge[] = [
  {
    name: 'svc_purge_backlog',
    help: 'Sessions past their purge deadline and not purged yet, due and overdue.',
    labelNames: ['state'],
    async read(db, now) {
      const backlog = await purgeBacklog(db, now);
      return [
        { labels: { state: 'due' }, value: backlog.due },
        { labels: { state: 'overdue' }, value: backlog.overdue },
      ];
    },
  },
];
