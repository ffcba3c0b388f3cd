-- The one source of truth: an append-only log of events, one hash chain per stream.
CREATE TABLE events (
  global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id        text        NOT NULL UNIQUE,
  stream_id       text        NOT NULL,
  stream_version  integer     NOT NULL CHECK (stream_version >= 1),
  type            text        NOT NULL,
  data            jsonb       NOT NULL,
  metadata        jsonb       NOT NULL DEFAULT '{}'::jsonb,
  transaction_id  xid8        NOT NULL DEFAULT pg_current_xact_id(),
  recorded_at     timestamptz NOT NULL DEFAULT now(),
  prev_hash       bytea,
  hash            bytea       NOT NULL,
  UNIQUE (stream_id, stream_version)
);

-- Readers of the global log walk (transaction_id, global_position).
CREATE INDEX events_transaction_order ON events (transaction_id, global_position);

-- The chain link is computed from the stored values themselves, so it is the same whoever appends.
-- recorded_at enters as integer microseconds so that no session setting can change the text.
CREATE FUNCTION events_link_hash(e events) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
  SELECT sha256(convert_to(
    coalesce(encode(e.prev_hash, 'hex'), '') || '|' || e.event_id || '|' || e.stream_id || '|' ||
    e.stream_version::text || '|' || e.type || '|' || e.data::text || '|' || e.metadata::text || '|' ||
    (extract(epoch FROM e.recorded_at) * 1000000)::bigint::text,
    'UTF8'))
$$;

-- readAll orders the log by transaction id, and a transaction takes its id at its first write. A
-- transaction that took its id before another one appended version N of a stream, and then appends
-- version N+1, would sort ahead of the version it follows, and a reader would see the stream out of
-- order. Such an append is refused like a lost race (40001); retried in a new transaction, whose id
-- is newer, it succeeds.
CREATE FUNCTION events_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  previous_transaction xid8;
BEGIN
  IF NEW.stream_version > 1 THEN
    SELECT hash, transaction_id INTO NEW.prev_hash, previous_transaction FROM events
     WHERE stream_id = NEW.stream_id AND stream_version = NEW.stream_version - 1;
    IF NOT FOUND THEN
      -- The caller expected a version the stream does not have: the same failure as a lost race.
      RAISE EXCEPTION 'stream % has no version %', NEW.stream_id, NEW.stream_version - 1
        USING ERRCODE = '40001';
    END IF;
    IF previous_transaction > NEW.transaction_id THEN
      RAISE EXCEPTION 'stream % version % was appended by a newer transaction; retry in a new one',
        NEW.stream_id, NEW.stream_version - 1
        USING ERRCODE = '40001';
    END IF;
  ELSE
    NEW.prev_hash := NULL;
  END IF;
  NEW.hash := events_link_hash(NEW);
  RETURN NEW;
END $$;

CREATE TRIGGER events_chain BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_chain();

CREATE FUNCTION events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events are append-only: % refused', TG_OP USING ERRCODE = '42501';
END $$;

CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();

-- Per-stream data keys, wrapped by the deployment data key. Destroying a key keeps the row as a
-- tombstone (wrapped_key NULL), so no later write can quietly mint a fresh key for that stream.
CREATE TABLE stream_keys (
  stream_id    text PRIMARY KEY,
  wrapped_key  bytea,
  created_at   timestamptz NOT NULL DEFAULT now(),
  destroyed_at timestamptz,
  CHECK ((wrapped_key IS NULL) = (destroyed_at IS NOT NULL))
);
