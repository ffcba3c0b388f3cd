-- migrate: no-transaction
-- One live Session of a workspace holds a reference: a create with a reference already held is
-- refused, and this index holds that against every race. A purge deletes the view row, and so
-- frees the reference. Built without blocking writes; the column is empty until this release runs.
CREATE UNIQUE INDEX CONCURRENTLY session_views_client_reference ON session_views (workspace_id, client_reference) WHERE client_reference IS NOT NULL;
