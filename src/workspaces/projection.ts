import { UNSEALED, eventOf, type Projection, type RecordedEvent, type UnitOfWork } from '../../eventstore/index.js';
import { WORKSPACE_EVENT_TYPES, workspaceOfStream, type WorkspaceEvent } from './events.js';
import * as sql from './sql.js';

/**
 * Workspace profiles, written inline: the request that sets a name answers from it, and the next
 * page a person opens shows it.
 */
export const workspacesProjection: Projection = {
  name: 'workspaces',
  tables: ['workspace_profiles'],
  eventTypes: [...WORKSPACE_EVENT_TYPES],
  async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
    for (const recorded of events) {
      const event = eventOf<WorkspaceEvent>(UNSEALED, recorded);
      await uow.query(sql.UPSERT_PROFILE, [workspaceOfStream(recorded.streamId), event.display_name, event.at]);
    }
  },
};
