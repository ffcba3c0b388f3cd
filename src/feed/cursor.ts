import type { FeedRefusal } from './refusals.js';

/**
 * Where a reader of a workspace's feed has got to: the last event it was given, as the feed
 * orders them (transaction, Session, version). Opaque to clients: base64url of the three.
 */
export interface FeedCursor {
  transactionId: string;
  sessionId: string;
  streamVersion: number;
}

/** Before every event. */
export const FEED_START: FeedCursor = { transactionId: '0', sessionId: '', streamVersion: 0 };

const SHAPE = /^(\d{1,20})\.(\d{1,10})\.([A-Za-z0-9_]{0,64})$/;

/**
 * The largest numbers a cursor can carry: a transaction id is an xid8 (unsigned 64 bits), a
 * stream version an integer (signed 32 bits). A cursor past them was never given, and is refused
 * as such, before the query would fail on it.
 */
const TRANSACTION_MAX = 2n ** 64n - 1n;
const VERSION_MAX = 2 ** 31 - 1;

export const encodeCursor = (cursor: FeedCursor): string =>
  Buffer.from(`${cursor.transactionId}.${cursor.streamVersion}.${cursor.sessionId}`, 'utf8').toString('base64url');

/** The cursor a client sent back, or a refusal of anything this service did not make. */
export function decodeCursor(text: string): FeedCursor | FeedRefusal {
  const match = /^[A-Za-z0-9_-]*$/.test(text) ? SHAPE.exec(Buffer.from(text, 'base64url').toString('utf8')) : null;
  const cursor = match && { transactionId: match[1]!, streamVersion: Number(match[2]), sessionId: match[3]! };
  const inRange = cursor !== null && BigInt(cursor.transactionId) <= TRANSACTION_MAX && cursor.streamVersion <= VERSION_MAX;
  return inRange && encodeCursor(cursor) === text ? cursor : { refused: 'cursor_unknown' };
}
