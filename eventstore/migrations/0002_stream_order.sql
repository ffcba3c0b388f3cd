-- readAll orders the log by transaction id, and a transaction's id is taken at its first write.
-- A transaction that took its id before another one appended version N of a stream, and then
-- appends version N+1, would sort ahead of the version it follows: an async projection would see
-- a stream out of order. Such an append is refused like a lost race (40001); the caller retries
-- in a new transaction, whose id is newer. Otherwise the chain link is as in 0001.
CREATE OR REPLACE FUNCTION events_chain() RETURNS trigger
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
