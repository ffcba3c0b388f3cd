-- The view and revision bodies are sealed (AES-GCM, base64url): ciphertext does not compress, so
-- every write of a body of more than about 2 kB paid for a compression attempt (pglz or lz4) that
-- gave up, and stored the same bytes. EXTERNAL stores a long body out of line without trying.
-- A rebuild's copies take the columns as they are here (CREATE TABLE ... LIKE ... INCLUDING ALL).
ALTER TABLE session_views ALTER COLUMN body SET STORAGE EXTERNAL;
ALTER TABLE session_revisions ALTER COLUMN body SET STORAGE EXTERNAL;
