-- The log's order is (transaction_id, global_position), and a transaction_id is the writing
-- transaction's id plus the log's epoch offset: zero in the cluster the log began in. A logical
-- dump restored into another cluster (or a move by logical replication) brings events under ids
-- that cluster has not reached; the first process to start there advances the offset, once, so
-- that every new event sorts after every stored one (eventstore/store.ts, advanceLogEpoch). No
-- superuser step is needed, and readers keep their rule: they read only below the horizon, the
-- oldest transaction in flight with the same offset added (docs/architecture.md#the-logs-epoch).
CREATE TABLE log_epoch (
  only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  -- How many times the offset was advanced: one per move into a cluster that was behind.
  epoch      integer NOT NULL DEFAULT 0,
  ids_offset bigint  NOT NULL DEFAULT 0
);

INSERT INTO log_epoch DEFAULT VALUES;

-- The writing transaction's place in the log's order (takes its transaction id, as
-- pg_current_xact_id does). Volatile: it is only ever a column default.
CREATE FUNCTION log_transaction_id() RETURNS xid8 LANGUAGE sql VOLATILE AS $$
  SELECT (pg_current_xact_id()::text::bigint + ids_offset)::text::xid8 FROM log_epoch
$$;

-- Every transaction below the horizon has ended: the oldest in flight, in the log's order.
-- Stable, so an index scan takes it as a bound evaluated once per statement.
CREATE FUNCTION log_horizon() RETURNS xid8 LANGUAGE sql STABLE AS $$
  SELECT (pg_snapshot_xmin(pg_current_snapshot())::text::bigint + ids_offset)::text::xid8 FROM log_epoch
$$;

-- The end of what this snapshot can see, in the log's order: no transaction at or above it had
-- ended when the snapshot was taken.
CREATE FUNCTION log_snapshot_end() RETURNS xid8 LANGUAGE sql STABLE AS $$
  SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::bigint + ids_offset)::text::xid8 FROM log_epoch
$$;

-- Only the default changes: the column's stored values stay as they are (no rewrite).
ALTER TABLE events ALTER COLUMN transaction_id SET DEFAULT log_transaction_id();
