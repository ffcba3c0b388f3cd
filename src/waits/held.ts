import type { FastifyReply } from 'fastify';
import type { WorkspaceKind } from './limits.js';
import type { Woken } from './waiters.js';
import { preferenceApplied } from './prefer.js';
import { endSpan, tracer } from '../tracing/index.js';

/** While what a read found is committed but not readable yet, it is read again this often (ms), doubling. */
const SETTLE_FROM_MS = 5;
const SETTLE_UP_TO_MS = 250;

/** What a route that can hold a request gives the one helper that holds, reads and answers it. */
export interface HeldRead<T> {
  /** The seconds the request asks to be held (preferredWait, clamped); undefined: it is answered at once. */
  seconds: number | undefined;
  /** The wake-up channel and the target on it that wake the request (a Session's id, a workspace's id). */
  channel: string;
  target: string;
  /** The workspace whose places the request takes, and its kind (limits.ts). */
  workspaceId: string;
  workspaceKind: WorkspaceKind;
  /**
   * The request's only read: what it answers with, the caller's access to it checked within (what
   * the caller may not see reads as nothing, which `answer` refuses as a fresh read would).
   */
  read: () => Promise<T>;
  /** Names what `read` reads, for whom: requests woken together with the same name share one read. */
  readKey: string;
  /** Whether the request waits on what it read first (its If-None-Match names it, the page is empty). */
  waitsOn: (first: T) => boolean;
  /** Whether a later read answers it: it is no longer what was read first (changed, or gone). */
  answers: (first: T, value: T) => boolean;
  /** How long from now what was read first stays readable, when time alone ends it: the wait ends then. */
  readableForMs?: (first: T) => number;
  /**
   * Whether a read leaves something committed that is not readable yet and whose becoming readable
   * wakes nothing (the feed's horizon, docs/waiting.md): it is then read again on a short timer.
   */
  settling?: (value: T) => boolean;
  /**
   * Checks the request's credential again, once it has waited: a key revoked or expired during the
   * wait throws its refusal instead of answering with what it may no longer read.
   */
  recheck: () => Promise<void>;
  /** The answer to the request; `held` says whether it was held (Preference-Applied is then set). */
  answer: (value: T, held: boolean) => FastifyReply;
}

/**
 * Holds a request, reads, and answers. The hold is taken before the only read, so a change
 * committed after that read wakes it (its wake-up is sent after its commit); a request that does
 * not wait on what it read, or finds no place (docs/waiting.md), is answered at once as without
 * Prefer. Each wake-up naming the target reads again (a wake-up is a hint: the change may not be
 * this request's), one read for every request it woke that reads the same (Hold.shared). The end of
 * the wait, or the process stopping, answers with what was read last; a lost listener, or what was
 * read ceasing to be readable, answers with a fresh read. Before a held request answers, its
 * credential is checked again (held.recheck).
 */
export async function answerHeld<T>(reply: FastifyReply, held: HeldRead<T>): Promise<FastifyReply> {
  const { seconds } = held;
  const hold =
    seconds === undefined
      ? undefined
      : reply.server.waits.hold({ channel: held.channel, target: held.target, workspaceId: held.workspaceId, workspaceKind: held.workspaceKind, ms: seconds * 1000, closed: reply.raw });
  const holding = typeof hold === 'object' ? hold : undefined;
  // From the hold to the answer; a request answered at once waited for nothing.
  const span = holding && tracer.startSpan('wait held', { attributes: { 'svc.wait.channel': held.channel, 'svc.wait.seconds': seconds } });
  let failed: unknown;
  try {
    const first = await held.read();
    if (!holding || !held.waitsOn(first)) {
      span?.setAttribute('svc.wait.waited', false);
      return held.answer(first, false);
    }
    const readableMs = held.readableForMs?.(first) ?? Infinity;
    const ceasesReadable = readableMs < seconds! * 1000;
    if (ceasesReadable) holding.endIn(Math.max(0, readableMs));
    let value = first;
    let woken: Woken = 'changed';
    for (let delay = SETTLE_FROM_MS; !held.answers(first, value); ) {
      if (held.settling?.(value)) {
        holding.lookAgainIn(delay);
        delay = Math.min(2 * delay, SETTLE_UP_TO_MS);
      }
      woken = await holding.next();
      if (woken === 'changed') value = await holding.shared(held.readKey, held.read);
      else {
        if (woken === 'unheard' || (woken === 'deadline' && ceasesReadable)) value = await held.read();
        break;
      }
    }
    // Set first, so a refusal after the wait says it was held too (and is left out of the latency histogram).
    span?.setAttributes({ 'svc.wait.waited': true, 'svc.wait.woken': woken });
    reply.header('preference-applied', preferenceApplied(seconds!));
    // Not for a client that went away (it is told nothing), nor as the process stops: each request
    // then answers nothing new since its first read, made with a credential then valid, and no query.
    if (woken !== 'closing' && !reply.raw.destroyed) await held.recheck();
    return held.answer(value, true);
  } catch (error) {
    failed = error;
    throw error;
  } finally {
    holding?.release();
    if (span) endSpan(span, failed);
  }
}
