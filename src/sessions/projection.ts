import type { RecordedEvent, Tx } from '../../eventstore/index.js';
import type { Projection } from '../../projections/index.js';
import type { ServiceContext } from '../context.js';
import { SESSION_EVENT_TYPES } from './events.js';
import { etagOf } from './state.js';
import * as sql from './sql.js';
import { loadSession } from './store.js';
import { eventsBody, revisionBody, sessionBody } from './view.js';

/**
 * The Session view, written inline with every Session event: the exact response bytes, the ETag
 * and every revision as stored. The state is folded from the stream up to the event being applied,
 * so a rebuild writes what the live fold wrote.
 */
export function sessionViewProjection(ctx: ServiceContext): Projection {
  return {
    name: 'session_views',
    tables: ['session_views', 'session_revisions'],
    eventTypes: SESSION_EVENT_TYPES,
    async apply(tx: Tx, event: RecordedEvent) {
      const state = await loadSession(tx, ctx, event.streamId, event.streamVersion);
      if (!state) return;
      const revision = state.revisions.length;
      await tx.query(sql.UPSERT_VIEW, [
        state.id,
        state.workspaceId,
        state.mode,
        state.mode === 'interactive' ? state.status : null,
        revision,
        state.events.length,
        etagOf(state),
        sessionBody(state),
        eventsBody(state),
        state.linkHash,
        state.linkExpiresAt,
        state.createdAt,
        event.data.at,
        revisionBody(state, revision),
      ]);
    },
  };
}
