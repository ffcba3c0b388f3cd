import type pg from 'pg';
import { EventStore, type NewEvent, type Projection, type RecordedEvent } from '../../eventstore/index.js';

const quiet = { warn: () => undefined };

/** An event store over the test database's pool, with the given inline projections (or none). */
export const storeOf = (db: { pool: pg.Pool }, inline: readonly Projection[] = []): EventStore =>
  new EventStore({ pool: db.pool, inline, log: quiet });

/** Appends in a unit of work of its own, committed. */
export const appendTo = (db: { pool: pg.Pool }, streamId: string, expectedVersion: number, events: NewEvent[]): Promise<RecordedEvent[]> =>
  storeOf(db).withUnitOfWork((uow) => uow.append(streamId, expectedVersion, events));
