import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { exportLog, type ExportedEvent, type JsonObject } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { isSessionId } from '../sessions/index.js';
import { openedFields, sealedFieldsOf, type SealedField } from './sealed.js';
import * as sql from './sql.js';
import { CommandRefused } from '../commandLine.js';

/**
 * `export`: the log as JSON Lines, one event a line in log order, with every stored value its
 * chain link is computed from (docs/audit.md). With `decrypt`, each line that holds sealed
 * content also carries it opened (`opened`), or the erased marker for a purged Session; the
 * stored values stay as they are, so the chain still recomputes.
 */

class ExportRefused extends CommandRefused {
  override name = 'ExportRefused';
}

/** A Session's streams: its own, and the delivery jobs of its events. */
async function streamsOfSession(ctx: Pick<ServiceContext, 'store'>, sessionId: string): Promise<string[]> {
  if (!isSessionId(sessionId)) throw new ExportRefused(`${sessionId} is not a Session id (ses_ followed by a ULID)`);
  const { rows } = await ctx.store.pool.query<{ stream_id: string }>(sql.DELIVERY_STREAMS_OF_SESSION, [sessionId]);
  const own = await ctx.store.pool.query('SELECT 1 FROM events WHERE stream_id = $1 LIMIT 1', [sessionId]);
  if (own.rowCount === 0) throw new ExportRefused(`the log has no Session ${sessionId}`);
  return [sessionId, ...rows.map((r) => r.stream_id)];
}

async function linesOf(ctx: Pick<ServiceContext, 'store' | 'streamKeys'>, events: readonly ExportedEvent[], decrypt: boolean): Promise<string> {
  if (!decrypt) return events.map((e) => `${JSON.stringify(e)}\n`).join('');
  const sealed = events.map((e): [ExportedEvent, JsonObject, SealedField[]] => {
    const data = JSON.parse(e.data) as JsonObject;
    return [e, data, sealedFieldsOf(e.type, e.stream_id, data)];
  });
  const keyStreams = [...new Set(sealed.flatMap(([, , fields]) => fields.map((f) => f.keyStream)))];
  const openers = keyStreams.length > 0 ? await ctx.streamKeys.openers(ctx.store.pool, keyStreams) : new Map();
  return sealed
    .map(([e, data, fields]) => `${JSON.stringify(fields.length > 0 ? { ...e, opened: openedFields(fields, data, openers) } : e)}\n`)
    .join('');
}

/** Writes the export to `out`, waiting on it when it is full; returns the number of events. */
export async function exportTo(ctx: Pick<ServiceContext, 'store' | 'streamKeys'>, options: { sessionId?: string; decrypt: boolean }, out: Writable): Promise<number> {
  const streamIds = options.sessionId === undefined ? undefined : await streamsOfSession(ctx, options.sessionId);
  return exportLog(ctx.store, { streamIds }, async (events) => {
    if (!out.write(await linesOf(ctx, events, options.decrypt))) await once(out, 'drain');
  });
}
