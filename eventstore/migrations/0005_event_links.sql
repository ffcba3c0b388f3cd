-- Link format 2: every event's hash can be recomputed from an export with no PostgreSQL, and the
-- appender computes it, so an append costs the database one index lookup, not a hash.
--
-- data and metadata are stored as the exact JSON text the appender wrote (RFC 8785 canonical
-- JSON), not as jsonb, so no database output format enters a hash. A link is the SHA-256 of the
-- canonical JSON array
--
--   [prev_hash as hex or null, event_id, stream_id, stream_version, type, data, metadata, recorded_at]
--
-- with data and metadata as the JSON values they hold and recorded_at as the UTC text
-- "YYYY-MM-DDTHH:MM:SS.ffffffZ". Storing text also spares every append a jsonb parse and every
-- link a jsonb-to-text rendering.
--
-- Events written before this migration keep link format 1 (the SHA-256 of their fields joined by
-- "|", data and metadata in PostgreSQL's jsonb text form, recorded_at in integer microseconds).
-- Their data and metadata become exactly that jsonb text here, so those links verify unchanged
-- and are reproducible offline as well (docs/architecture.md describes both formats).

DROP TRIGGER events_chain ON events;
DROP FUNCTION events_chain();
DROP FUNCTION events_link_hash(events);

ALTER TABLE events ALTER COLUMN data TYPE text USING data::text;
ALTER TABLE events ALTER COLUMN metadata DROP DEFAULT;
ALTER TABLE events ALTER COLUMN metadata TYPE text USING metadata::text;
ALTER TABLE events ALTER COLUMN metadata SET DEFAULT '{}';
-- Adding a column with a default rewrites nothing, so the append-only trigger stays silent.
ALTER TABLE events ADD COLUMN link_format smallint NOT NULL DEFAULT 1 CHECK (link_format IN (1, 2));
ALTER TABLE events ALTER COLUMN link_format SET DEFAULT 2;

CREATE FUNCTION events_recorded_at_text(at timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;

-- to_json(text)::text escapes a string the way RFC 8785 does for the characters an id or a type
-- can hold; data and metadata enter as the canonical JSON they are stored as.
CREATE FUNCTION events_link_hash(e events) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE e.link_format
    WHEN 2 THEN sha256(convert_to(
      '[' || coalesce(to_json(encode(e.prev_hash, 'hex'))::text, 'null') || ',' || to_json(e.event_id)::text || ',' ||
      to_json(e.stream_id)::text || ',' || e.stream_version::text || ',' || to_json(e.type)::text || ',' ||
      e.data || ',' || e.metadata || ',' || to_json(events_recorded_at_text(e.recorded_at))::text || ']',
      'UTF8'))
    ELSE sha256(convert_to(
      coalesce(encode(e.prev_hash, 'hex'), '') || '|' || e.event_id || '|' || e.stream_id || '|' ||
      e.stream_version::text || '|' || e.type || '|' || e.data || '|' || e.metadata || '|' ||
      (extract(epoch FROM e.recorded_at) * 1000000)::bigint::text,
      'UTF8'))
  END
$$;

-- The appender computes each new link (eventstore/chain.ts) from the predecessor's hash it read;
-- the database holds it to the chain: the predecessor must exist and its hash be the prev_hash
-- given, and its transaction must not be newer than this one. readAll orders the log by
-- transaction id, and a transaction takes its id at its first write: one that took its id before
-- another appended version N of a stream, and then appends version N+1, would sort ahead of the
-- version it follows. Each failure is refused like a lost race (40001); retried in a new
-- transaction, on the stream as it is then, the append succeeds. The link itself is checked by
-- `verify` and by an offline audit, which recompute it with events_link_hash or its twin.
CREATE FUNCTION events_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  previous_hash bytea;
  previous_transaction xid8;
BEGIN
  NEW.link_format := 2;
  IF NEW.stream_version = 1 THEN
    IF NEW.prev_hash IS NOT NULL THEN
      RAISE EXCEPTION 'stream % starts with a link to a predecessor', NEW.stream_id USING ERRCODE = '40001';
    END IF;
    RETURN NEW;
  END IF;
  SELECT hash, transaction_id INTO previous_hash, previous_transaction FROM events
   WHERE stream_id = NEW.stream_id AND stream_version = NEW.stream_version - 1;
  IF NOT FOUND OR previous_hash IS DISTINCT FROM NEW.prev_hash THEN
    RAISE EXCEPTION 'stream % version % is not the predecessor this append links to', NEW.stream_id, NEW.stream_version - 1
      USING ERRCODE = '40001';
  END IF;
  IF previous_transaction > NEW.transaction_id THEN
    RAISE EXCEPTION 'stream % version % was appended by a newer transaction; retry in a new one',
      NEW.stream_id, NEW.stream_version - 1
      USING ERRCODE = '40001';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER events_chain BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_chain();
