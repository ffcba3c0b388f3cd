-- Which deployment data key wrapped each stream key (SVC_DATA_KEYS names each key by an id), so a
-- rotation can tell what an old key still wraps. Keys wrapped before ids were recorded were all
-- wrapped by the one key of SVC_DATA_KEY, whose id is `initial`: the default fills them in without
-- rewriting the table (PostgreSQL keeps it as the missing value of the rows already there). It
-- stays, for the processes of the release before during a rolling upgrade, which wrap with that
-- key alone and name none; this release names the key of every row it writes, and none on a
-- tombstone.
ALTER TABLE stream_keys ADD COLUMN key_id text DEFAULT 'initial';
