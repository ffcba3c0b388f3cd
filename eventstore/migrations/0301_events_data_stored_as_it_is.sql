-- An event's data over about 2 kB is, in practice, sealed content (a Surface, an answer): base64url
-- ciphertext, which does not compress. Each such append paid for a compression attempt that gave
-- up and stored the same bytes (about 15 µs of the server's CPU for 2.3 kB under pglz, measured by
-- inserting such rows with and without it). EXTERNAL stores a long value out of line without the
-- attempt; values already stored stay as they are.
ALTER TABLE events ALTER COLUMN data SET STORAGE EXTERNAL;
