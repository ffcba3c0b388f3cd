import type { Projection, RecordedEvent, UnitOfWork } from '../../eventstore/index.js';
import { QUOTA_USED, asQuotaUsed } from './events.js';
import * as sql from './sql.js';

/** Every use under quota, written inline: the next use's count reads it in its own unit of work. */
export const quotaUsesProjection: Projection = {
  name: 'quota_uses',
  tables: ['quota_uses'],
  eventTypes: [QUOTA_USED],
  async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
    for (const recorded of events) {
      const used = asQuotaUsed(recorded);
      await uow.query(sql.INSERT_USE, [used.workspace_id, used.use, used.at, recorded.streamVersion]);
    }
  },
};
