-- The Session events each endpoint asked for (PUT /v1/webhook `events`): every endpoint receives
-- response.accepted; session.expired only when asked. Endpoints registered before the field existed
-- asked for nothing else.
ALTER TABLE webhook_endpoints ADD COLUMN events text[] NOT NULL DEFAULT '{response.accepted}';
