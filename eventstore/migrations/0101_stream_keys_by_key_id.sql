-- migrate: no-transaction
-- The live keys of each data key, in stream order: which keys are in use (one probe each), how many
-- each wraps, and the batches `rekey` re-wraps. Built without blocking writes on a large table.
CREATE INDEX CONCURRENTLY stream_keys_by_key_id ON stream_keys (key_id, stream_id) WHERE wrapped_key IS NOT NULL;
