-- The trace context (a W3C traceparent) of the request that queued a delivery job, when tracing was
-- on: each attempt's span joins that trace, and the request to the receiver carries it. Like the
-- lease columns, the dispatchers' own: never folded from events (a rebuild carries it over).
ALTER TABLE webhook_deliveries ADD COLUMN trace_parent text;
