-- At most one pending job per accepted Event and endpoint, whichever path queues it and however
-- many callers race: the second insert waits for the first transaction and then fails.
CREATE UNIQUE INDEX webhook_deliveries_one_pending ON webhook_deliveries (event_id, endpoint_id) WHERE status = 'pending';
