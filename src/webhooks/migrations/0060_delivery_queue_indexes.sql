-- The queue an operator watches (status, /metrics) is counted from partial indexes of the pending
-- and of the failed jobs, never from the table of every job ever queued: the pending ones by their
-- age (the oldest is the gauge), the failed ones by theirs.
CREATE INDEX webhook_deliveries_pending_age ON webhook_deliveries (created_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (created_at) WHERE status = 'failed';
