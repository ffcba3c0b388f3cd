import type { FastifyReply } from 'fastify';
import type { Waiters, Woken } from './waiters.js';

export interface HeldRead<T> {
  waiters: Waiters;
  channel: string;
  target: string;
  workspaceId: string;
  /** What the request asked for, clamped (prefer.ts). */
  seconds: number;
  /** When what is read stops being readable by time alone (a trial Session's result): the wait ends there. */
  readableUntil?: Date;
  now: Date;
  reply: FastifyReply;
  /** Reads what the request answers with. */
  read: () => Promise<T>;
  /** Names what `read` reads: requests woken together with the same name share one read. */
  readKey: string;
  /** Whether a value read answers the request (it changed, or is gone). */
  answers: (value: T) => boolean;
}

export interface Held<T> {
  value: T;
  /** The seconds applied, for Preference-Applied; undefined when it was not held. */
  applied: number | undefined;
}

/**
 * A read held until it answers or the wait is over. The hold is taken before the first read, so
 * a change committed after that read wakes it: its wake-up is sent after its commit. Each wake-up
 * naming the target reads again (a wake-up is a hint: the change may not be this request's), one
 * read for every request it woke that reads the same (Hold.shared). The end of the wait, or the
 * process stopping, answers with what was read last, without a query; a lost listener answers
 * with a fresh read.
 */
export async function heldRead<T>(held: HeldRead<T>, current: T): Promise<Held<T>> {
  const ms = held.seconds * 1000;
  const untilEnd = held.readableUntil === undefined ? Infinity : held.readableUntil.getTime() - held.now.getTime();
  const hold = held.waiters.hold({ channel: held.channel, target: held.target, workspaceId: held.workspaceId, ms: Math.max(0, Math.min(ms, untilEnd)), closed: held.reply.raw });
  if (typeof hold === 'string') return { value: current, applied: undefined };
  try {
    let value = await held.read();
    for (;;) {
      if (held.answers(value)) break;
      const woken: Woken = await hold.next();
      const expired = woken === 'deadline' && untilEnd < ms;
      if (woken === 'changed') value = await hold.shared(held.readKey, held.read);
      else if (woken === 'unheard' || expired) value = await held.read();
      if (woken !== 'changed') break;
    }
    return { value, applied: held.seconds };
  } finally {
    hold.release();
  }
}
