-- A dispatcher claims a delivery job with a lease on its row: who holds it, since when, until when.
-- These columns are the dispatchers' own and never folded from events (the projection's upsert
-- leaves them alone; a rebuild carries them over from the live rows). A lease that ran out while
-- its holder was sending is a lost attempt: the next claimer records it as `unknown`.
ALTER TABLE webhook_deliveries
  ADD COLUMN leased_by   text,
  ADD COLUMN leased_at   timestamptz,
  ADD COLUMN lease_until timestamptz;

-- The leased rows, few at any time: when the next lease runs out.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE lease_until IS NOT NULL;
