import type { Reader } from '../../eventstore/index.js';
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
