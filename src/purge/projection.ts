import { columnsOf, type Projection, type RecordedEvent, type UnitOfWork } from '../../eventstore/index.js';
import { SESSION_COMPLETED, SESSION_CREATED, SESSION_PURGED } from '../sessions/index.js';
import { purgeDeadline } from './decide.js';
import { foldLifetime } from './lifetime.js';
import * as sql from './sql.js';

/**
 * The purge schedule: each Session's deadline, folded (asynchronously, from a checkpoint) from the
 * events that move it: its creation, its completion, and its purge, which removes it. A batch is
 * folded stream by stream up to its last event there, so a rebuild writes what the live fold did.
 */
export const purgeScheduleProjection: Projection = {
  name: 'purge_schedule',
  tables: ['purge_schedule'],
  eventTypes: [SESSION_CREATED, SESSION_COMPLETED, SESSION_PURGED],
  async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
    const lastVersion = new Map<string, number>();
    for (const event of events) lastVersion.set(event.streamId, event.streamVersion);
    const streams = await uow.readStreams([...lastVersion.keys()]);
    const rows: unknown[][] = [];
    const purged: string[] = [];
    for (const [id, version] of lastVersion) {
      const life = foldLifetime(streams.get(id)!.filter((r) => r.streamVersion <= version))!;
      if (life.purged) {
        purged.push(id);
        continue;
      }
      const deadline = purgeDeadline(life);
      rows.push([id, life.workspaceId, life.createdAt, deadline?.dueAt ?? null, deadline?.reason ?? null]);
    }
    await uow.query(sql.UPSERT_SCHEDULE, [...columnsOf(rows, 5), purged]);
  },
};
