import { PATTERNS } from './limits.js';

/**
 * Where a reader of a workspace's Sessions has got to, newest first: the last Session it was
 * given, by its creation time (microseconds, UTC) and id. Opaque to clients: base64url of the two,
 * with the event feed's rules (src/feed/cursor.ts): a cursor this list did not give is refused.
 */
export interface ListCursor {
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ`, or `infinity` before the newest Session. */
  createdAt: string;
  sessionId: string;
}

/** Before every Session: the newest comes first. */
export const LIST_START: ListCursor = { createdAt: 'infinity', sessionId: '' };

export type ListCursorRefusal = { refused: 'session_cursor_unknown' };

const SHAPE = new RegExp(`^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z) (${PATTERNS.sessionId.slice(1, -1)})$`);

export const encodeListCursor = (cursor: ListCursor): string => Buffer.from(`${cursor.createdAt} ${cursor.sessionId}`, 'utf8').toString('base64url');

const START_TEXT = encodeListCursor(LIST_START);

/** A time that exists: the calendar has its day and the clock its hour (the milliseconds of it, as Date keeps them). */
const exists = (time: string): boolean => {
  const parsed = new Date(`${time.slice(0, 23)}Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 23) === time.slice(0, 23);
};

/** The cursor a client sent back, or a refusal of anything this list did not make. */
export function decodeListCursor(text: string): ListCursor | ListCursorRefusal {
  // An empty first page gives the start back.
  if (text === START_TEXT) return LIST_START;
  const match = /^[A-Za-z0-9_-]*$/.test(text) ? SHAPE.exec(Buffer.from(text, 'base64url').toString('utf8')) : null;
  const cursor = match && exists(match[1]!) ? { createdAt: match[1]!, sessionId: match[2]! } : null;
  return cursor && encodeListCursor(cursor) === text ? cursor : { refused: 'session_cursor_unknown' };
}
