import type { RefusalTable } from '../http/refusal.js';

/** What the feed refuses: an `after` it did not give (cursor.ts). */
export type FeedRefusal = { refused: 'cursor_unknown' };

export const FEED_REFUSALS: RefusalTable<FeedRefusal> = {
  cursor_unknown: { status: 400, code: 'INVALID_SCHEMA', message: 'The query parameter after is not a cursor this feed gave (next_cursor).' },
};
