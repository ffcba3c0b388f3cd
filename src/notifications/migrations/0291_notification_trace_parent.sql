-- The trace context (a W3C traceparent) of the request whose event made a notification job owed,
-- when tracing was on: the span of each send joins that trace. Written with the job, kept while it
-- is owed.
ALTER TABLE notification_jobs ADD COLUMN trace_parent text;
