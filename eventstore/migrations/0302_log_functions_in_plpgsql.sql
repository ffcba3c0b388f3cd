-- The log's order functions, in PL/pgSQL rather than SQL. A SQL function that cannot be inlined
-- (these read log_epoch) is parsed, analysed and planned again on every statement that calls it:
-- log_transaction_id on every append, as the events' column default, and the horizon in every
-- reader's statement. PL/pgSQL prepares its statement once per connection. Same results, same
-- volatility.
CREATE OR REPLACE FUNCTION log_transaction_id() RETURNS xid8 LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN (SELECT (pg_current_xact_id()::text::bigint + ids_offset)::text::xid8 FROM log_epoch);
END $$;

CREATE OR REPLACE FUNCTION log_horizon() RETURNS xid8 LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT (pg_snapshot_xmin(pg_current_snapshot())::text::bigint + ids_offset)::text::xid8 FROM log_epoch);
END $$;

CREATE OR REPLACE FUNCTION log_snapshot_end() RETURNS xid8 LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::bigint + ids_offset)::text::xid8 FROM log_epoch);
END $$;
