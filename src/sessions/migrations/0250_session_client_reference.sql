-- A Session's client reference (client_reference_id, given at creation), as a keyed digest of the
-- workspace and the reference (src/sessions/references.ts): the view of every Session created
-- before it has none. Nullable without a default, so adding it rewrites nothing.
ALTER TABLE session_views ADD COLUMN client_reference text;
