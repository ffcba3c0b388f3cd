import { compose, type Part, type Projection, type RecordedEvent, type StreamKeys, type UnitOfWork } from '../../eventstore/index.js';
import { REVISION_PUBLISHED, SESSION_CREATED, SESSION_EVENT_TYPES } from './events.js';
import { etagOf, foldSession, isErased } from './state.js';
import * as sql from './sql.js';
import { toSessionRecord } from './store.js';
import { revisionBody, sessionBody } from './view.js';

/**
 * The Session view, written inline with every Session event: the exact response bytes and the
 * ETag, and each revision as stored when it is published. A batch of events (one append, or a
 * rebuild's stretch of the log) is folded stream by stream up to its last event there, and written
 * with one statement, so a rebuild replays the log at the rate of a few set-wide writes; a live
 * append writes them in its own statement (Projection.along), one round trip for both.
 * A Session whose content is erased (purged) has no rows: the purge deletes them, and a rebuild,
 * which can no longer open any of its events, never writes them.
 */
export function sessionViewProjection(keys: StreamKeys): Projection {
  /** The batch's writes: each Session's view and the revisions published, as parts of one statement; the Sessions erased. */
  async function writes(uow: UnitOfWork, events: readonly RecordedEvent[]): Promise<{ parts: Part[]; erased: string[] }> {
    const byStream = new Map<string, RecordedEvent[]>();
    for (const event of events) {
      const own = byStream.get(event.streamId);
      if (own) own.push(event);
      else byStream.set(event.streamId, [event]);
    }
    const ids = [...byStream.keys()];
    const [streams, openers] = await Promise.all([uow.readStreams(ids), keys.openers(uow, ids)]);
    const views: object[] = [];
    const revisions: object[] = [];
    const erased: string[] = [];
    for (const [id, own] of byStream) {
      const last = own.at(-1)!;
      const open = openers.get(id)!;
      const state = foldSession(streams.get(id)!.filter((r) => r.streamVersion <= last.streamVersion).map((r) => toSessionRecord(r, open)))!;
      if (isErased(state)) {
        erased.push(id);
        continue;
      }
      views.push({
        session_id: state.id,
        workspace_id: state.workspaceId,
        mode: state.mode,
        status: state.mode === 'interactive' ? state.status : null,
        revision: state.revisions.length,
        event_count: state.events.length,
        etag: etagOf(state),
        body: sessionBody(state),
        link_hash: state.linkHash,
        link_expires_at: state.linkExpiresAt,
        created_at: state.createdAt,
        updated_at: last.data.at,
      });
      for (const event of own) {
        if (event.type !== SESSION_CREATED && event.type !== REVISION_PUBLISHED) continue;
        const revision = event.type === SESSION_CREATED ? 1 : (event.data.revision as number);
        revisions.push({ session_id: id, revision, body: revisionBody(state, revision) });
      }
    }
    const parts: Part[] = [];
    if (views.length > 0) parts.push({ name: 'session_views', text: sql.UPSERT_VIEWS, params: [JSON.stringify(views)] });
    if (revisions.length > 0) parts.push({ name: 'session_revisions', text: sql.INSERT_REVISIONS, params: [JSON.stringify(revisions)] });
    return { parts, erased };
  }

  return {
    name: 'session_views',
    tables: ['session_views', 'session_revisions'],
    eventTypes: SESSION_EVENT_TYPES,
    async apply(uow, events) {
      const { parts, erased } = await writes(uow, events);
      if (parts.length > 0) {
        const { statement, params } = compose(parts);
        await uow.query(statement, params);
      }
      if (erased.length > 0) await uow.query(sql.FORGET_SESSIONS, [erased]);
    },
    // A live append writes its Sessions' views in its own statement; a purge (whose rows go) after it.
    async along(uow, events) {
      const { parts, erased } = await writes(uow, events);
      return erased.length === 0 ? parts : undefined;
    },
  };
}
