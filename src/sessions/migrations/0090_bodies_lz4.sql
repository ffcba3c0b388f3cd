-- The view and revision bodies are compressed with lz4 where the server has it (PostgreSQL 14+
-- built with lz4, as most packages are): a body of a few kilobytes is compressed on every write of
-- it, and pglz spent more CPU on that than the rest of the row's insert; lz4 compresses and
-- decompresses several times faster, to about the same size. A server built without lz4 keeps
-- pglz. Values written before keep their compression until written again (a rebuild writes all).
DO $$
BEGIN
  ALTER TABLE session_views ALTER COLUMN body SET COMPRESSION lz4;
  ALTER TABLE session_revisions ALTER COLUMN body SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'this server has no lz4: Session bodies stay compressed with pglz';
END
$$;
