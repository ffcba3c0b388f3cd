import {
  batchStreams,
  compose,
  foldRecorded,
  rowsPart,
  rowValues,
  type Opener,
  type Part,
  type Projection,
  type RecordedEvent,
  type RowCipher,
  type RowOf,
  type StreamKeys,
  type UnitOfWork,
} from '../../eventstore/index.js';
import { REVISION_PUBLISHED, SESSION_CREATED, SESSION_EVENT_TYPES } from './events.js';
import { etagOf, isErased, sessionDecider } from './state.js';
import { clientReferenceDigest } from './references.js';
import * as sql from './sql.js';
import { sealRevisionBody, sealViewBody } from './storedView.js';
import { sessionBodies } from './view.js';

type Row = Record<string, unknown>;

const SESSION_TYPES = new Set<string>(SESSION_EVENT_TYPES);

/**
 * The Session's view row after `stream` (its events up to the newest one folded), and a row for
 * each revision that the `published` events among them published, their bodies sealed with the
 * Session's key (`cipher`); undefined once its content is erased.
 */
function rowsOf(
  keys: StreamKeys,
  stream: readonly RecordedEvent[],
  open: Opener,
  cipher: RowCipher | undefined,
  published: readonly RecordedEvent[],
): { view: RowOf<typeof sql.UPSERT_VIEWS>; revisions: Array<RowOf<typeof sql.INSERT_REVISIONS>>; links: Array<RowOf<typeof sql.INSERT_RESPONDER_LINKS>> } | undefined {
  // The same fold as the command's: in one unit of work each event is opened once, for both.
  const state = foldRecorded(sessionDecider, stream, open).state!;
  if (isErased(state) || !cipher) return undefined;
  const shown = published.filter((e) => e.type === SESSION_CREATED || e.type === REVISION_PUBLISHED);
  const numbers = shown.map((e) => (e.type === SESSION_CREATED ? 1 : (e.data.revision as number)));
  const bodies = sessionBodies(state, numbers);
  const view = {
    session_id: state.id,
    workspace_id: state.workspaceId,
    mode: state.mode,
    status: state.mode === 'interactive' ? state.status : null,
    revision: state.revisions.length,
    event_count: state.events.length,
    etag: etagOf(state),
    body: sealViewBody(cipher, bodies.frame),
    link_hash: state.linkHash,
    link_expires_at: state.linkExpiresAt,
    created_at: state.createdAt,
    updated_at: stream.at(-1)!.data.at,
    client_reference: state.clientReferenceId === null ? null : clientReferenceDigest(keys, state.workspaceId, state.clientReferenceId),
  } satisfies RowOf<typeof sql.UPSERT_VIEWS>;
  const revisions = numbers.map(
    (revision, i) => ({ session_id: state.id, revision, body: bodies.revisions[i] && sealRevisionBody(cipher, bodies.revisions[i]) }) satisfies RowOf<typeof sql.INSERT_REVISIONS>,
  );
  // Every responder's link, each time a plan is published: a link already stored is kept as it is.
  const links = shown.length === 0 ? [] : state.responders.flatMap((r) => (r.link_hash ? [{ link_hash: r.link_hash, session_id: state.id, responder_id: r.id } satisfies RowOf<typeof sql.INSERT_RESPONDER_LINKS>] : []));
  return { view, revisions, links };
}

/**
 * The Session view, written inline with every Session event: the exact response bytes and the
 * ETag, and each revision as stored when it is published. A batch of events (one append, or a
 * rebuild's stretch of the log) is folded stream by stream up to its last event there, and written
 * with one statement; a live append writes them in its own statement (Projection.along), one round
 * trip for both. A rebuild's first pass folds whole streams with the same code and loads their rows
 * into the empty copies. A Session whose content is erased (purged) has no rows: the purge deletes
 * them, and a rebuild, which can no longer open any of its events, never writes them.
 */
export function sessionViewProjection(keys: StreamKeys): Projection {
  /** The batch's writes: each Session's view and the revisions published, as parts of one statement; the Sessions erased. */
  async function writes(uow: UnitOfWork, events: readonly RecordedEvent[]): Promise<{ parts: Part[]; erased: string[] }> {
    const ids = [...new Set(events.map((e) => e.streamId))];
    const [streams, openers] = await Promise.all([batchStreams(uow, events), keys.openers(uow, ids)]);
    // After the openers, whose read of the keys it then needs no second time.
    const ciphers = await keys.rowCiphers(uow, ids);
    const views: Row[] = [];
    const revisions: Row[] = [];
    const links: Row[] = [];
    const erased: string[] = [];
    for (const [id, { stream, batch }] of streams) {
      const rows = rowsOf(keys, stream, openers.get(id)!, ciphers.get(id), batch);
      if (!rows) {
        erased.push(id);
        continue;
      }
      views.push(rows.view);
      revisions.push(...rows.revisions);
      links.push(...rows.links);
    }
    const parts: Part[] = [];
    if (views.length > 0) parts.push(rowsPart(sql.UPSERT_VIEWS, views));
    if (revisions.length > 0) parts.push(rowsPart(sql.INSERT_REVISIONS, revisions));
    if (links.length > 0) parts.push(rowsPart(sql.INSERT_RESPONDER_LINKS, links));
    return { parts, erased };
  }

  return {
    name: 'session_views',
    tables: ['session_views', 'session_revisions', 'responder_links'],
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
    load: {
      columns: { session_views: sql.UPSERT_VIEWS.names, session_revisions: sql.INSERT_REVISIONS.names, responder_links: sql.INSERT_RESPONDER_LINKS.names },
      rows(streams, storedKeys) {
        const views: unknown[][] = [];
        const revisions: unknown[][] = [];
        const links: unknown[][] = [];
        for (const [id, stream] of streams) {
          const own = stream.filter((e) => SESSION_TYPES.has(e.type));
          if (own.length === 0) continue;
          const upTo = own.at(-1)!.streamVersion;
          const { open, cipher } = keys.bothOfStored(id, storedKeys.get(id));
          const rows = rowsOf(keys, upTo === stream.length ? stream : stream.slice(0, upTo), open, cipher, own);
          if (!rows) continue;
          views.push(rowValues(sql.UPSERT_VIEWS, rows.view));
          for (const revision of rows.revisions) revisions.push(rowValues(sql.INSERT_REVISIONS, revision));
          // The whole stream folded: its responders' links once each.
          for (const link of rows.links) links.push(rowValues(sql.INSERT_RESPONDER_LINKS, link));
        }
        return { session_views: views, session_revisions: revisions, responder_links: links };
      },
    },
  };
}
