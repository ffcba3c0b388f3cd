-- A job no longer keeps a copy of its request body: the dispatcher renders it at send time from
-- the Session's accepted response, the one place the response (and its receipt) is stored.
ALTER TABLE webhook_deliveries DROP COLUMN sealed_body;
