-- An export of one Session finds its delivery streams in the log: the delivery.queued events that
-- name it. Only those events are indexed, so other appends pay nothing.
CREATE INDEX events_delivery_session ON events ((data::jsonb ->> 'session_id')) WHERE type = 'delivery.queued';
