-- When each Session's link lapses with its current revision unanswered, folded by the purge
-- projection beside its purge deadline: the purger records session.expired once it passes. Null
-- when nothing can lapse (a display Session, an answered revision, a completed or already expired
-- Session). Rows folded before this column existed have none until the schedule is rebuilt
-- (`npm start -- rebuild purge_schedule`).
ALTER TABLE purge_schedule ADD COLUMN expires_at timestamptz;

-- Purgers claim the earliest lapsed links first.
CREATE INDEX purge_schedule_expires ON purge_schedule (expires_at, session_id) WHERE expires_at IS NOT NULL;
