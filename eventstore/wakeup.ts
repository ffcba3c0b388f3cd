/**
 * Wake-ups: hints sent with NOTIFY after a commit, so that other processes look again now rather
 * than at their next poll. Never the only path: every listener also polls, and a lost wake-up only
 * delays work. A payload starts with a token unique to its sender and send (PostgreSQL folds
 * identical notifications of one transaction), then the targets separated by spaces, or `*` for
 * "everything" (a batch past NOTIFY's 8000-byte limit, or a process that has just started).
 */

/** Every append wakes this channel with the stream ids it wrote to. */
export const EVENTS_CHANNEL = 'svc_events';

export interface Wakeup {
  channel: string;
  payload: string;
}

export const EVERYTHING = '*';

/** NOTIFY payloads must stay under 8000 bytes; past this the batch is sent as "everything". */
const MAX_PAYLOAD_BYTES = 7_900;

/** What a wake-up names: its targets, or everything. */
export function wakeupTargets(payload: string): readonly string[] | typeof EVERYTHING {
  const targets = payload.split(' ').slice(1);
  return targets.includes(EVERYTHING) ? EVERYTHING : targets;
}

/** The payload for a batch of targets; `*` when they do not fit. */
export function wakeupPayload(token: string, targets: readonly string[]): string {
  const payload = `${token} ${targets.join(' ')}`;
  return Buffer.byteLength(payload, 'utf8') > MAX_PAYLOAD_BYTES ? `${token} ${EVERYTHING}` : payload;
}
