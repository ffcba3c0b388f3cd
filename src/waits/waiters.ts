import type { EventEmitter } from 'node:events';
import { Counter, Gauge, type Registry } from 'prom-client';
import { EVERYTHING, wakeupTargets, type Wakeups } from '../../eventstore/index.js';
import { WAIT_LIMITS, type WaitLimits, type WorkspaceKind } from './limits.js';

/**
 * Why a held request stops waiting: what it waits on may have changed (a wake-up named it: read
 * again), its time is up, the process is stopping, the wake-ups are not heard (the listening
 * connection is down: never hold blind), or the client went away.
 */
export type Woken = 'changed' | 'deadline' | 'closing' | 'unheard' | 'gone';

/** Why a request was not held: it is then answered at once. */
export type NotHeld = 'not_listening' | 'closing' | 'process_cap' | 'workspace_cap';

export interface HoldRequest {
  /** The wake-up channel, and the target on it, that wake this request (a Session id, a workspace id). */
  channel: string;
  target: string;
  /** The caps are per process and per workspace, a workspace's by its kind (limits.ts). */
  workspaceId: string;
  workspaceKind: WorkspaceKind;
  /** The longest it is held. */
  ms: number;
  /** Emits `close` when the client goes away (the response's own emitter: no signal object a request). */
  closed: Pick<EventEmitter, 'once' | 'off'> & { destroyed: boolean };
}

/**
 * The reads that the requests one wake-up woke share, by what they read: each starts after the
 * wake-up, so it sees the change, and a hundred requests on one Session cost one read.
 */
export type Wave = Map<string, Promise<unknown>>;

/** One held request: each wake-up naming its target wakes `next` (or the next call of it). */
export class Hold {
  private pending: ((woken: Woken) => void) | undefined;
  private changed = false;
  private ended: Woken | undefined;
  private deadline: NodeJS.Timeout | undefined;
  /** The wave of the latest wake-up that named this request. */
  wave: Wave = new Map();

  constructor(
    private readonly onRelease: () => void,
    /** Wakes every request on this one's target after `ms` (Waiters.lookAgain). */
    readonly lookAgainIn: (ms: number) => void,
  ) {}

  /** Ends the wait `ms` from now (its deadline, or sooner: what it waits on stops being readable). */
  endIn(ms: number): void {
    clearTimeout(this.deadline);
    this.deadline = setTimeout(() => this.wake('deadline'), ms);
  }

  /** Frees its place; the caller does so once it answered. */
  release(): void {
    clearTimeout(this.deadline);
    this.onRelease();
  }

  /** The read `key` names in the latest wave: made once for every request woken with this one. */
  shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    let made = this.wave.get(key) as Promise<T> | undefined;
    if (!made) {
      made = read();
      this.wave.set(key, made);
    }
    return made;
  }

  /** The next reason to look: a change pending since the last call, or the next one. */
  next(): Promise<Woken> {
    if (this.ended) return Promise.resolve(this.ended);
    if (this.changed) {
      this.changed = false;
      return Promise.resolve('changed');
    }
    return new Promise((resolve) => (this.pending = resolve));
  }

  wake(woken: Woken, wave: Wave = new Map()): void {
    if (this.ended) return;
    if (woken !== 'changed') this.ended = woken;
    else {
      this.changed = true;
      this.wave = wave;
    }
    const pending = this.pending;
    this.pending = undefined;
    if (pending) {
      this.changed = false;
      pending(woken);
    }
  }
}

/**
 * Every request this process holds waiting, by what wakes it. One listening connection serves
 * them all (eventstore/wakeups.ts): a wake-up's payload names the targets, and only their holds
 * wake; nothing is read from the database while nothing changes. A hold is refused past a cap,
 * while the listener is down, and once the process is stopping; when the listener is lost every
 * hold is answered, as at shutdown.
 */
export class Waiters {
  /** The caps; WAIT_LIMITS unless a test lowers them. */
  limits: WaitLimits = WAIT_LIMITS;
  private readonly holds = new Map<string, Set<Hold>>();
  private readonly perWorkspace = new Map<string, number>();
  /** Wake-ups due on a timer, by target: what a read found there is not readable yet (lookAgain). */
  private readonly soon = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private size = 0;
  private closing = false;
  private readonly refused: Counter<'reason'>;

  constructor(
    private readonly wakeups: Wakeups,
    channels: readonly string[],
    registry: Registry,
  ) {
    for (const channel of channels) {
      wakeups.on(channel, (payload) => {
        const targets = wakeupTargets(payload);
        if (targets === EVERYTHING) this.wakeChannel(channel);
        else for (const target of targets) this.wakeTarget(key(channel, target));
      });
    }
    wakeups.onLost(() => this.wakeAll('unheard'));
    const registers = [registry];
    this.refused = new Counter({
      name: 'svc_waits_refused_total',
      help: 'Requests that asked to wait and were answered at once: a cap reached, the listener down, or the process stopping.',
      labelNames: ['reason'],
      registers,
    });
    const gauge: Gauge = new Gauge({
      name: 'svc_waits_held',
      help: 'Requests this process holds waiting now.',
      registers,
      collect: () => gauge.set(this.size),
    });
  }

  /** How many requests are held now. */
  get held(): number {
    return this.size;
  }

  /** Holds a request, or says why not. The caller must release the hold once it answered. */
  hold(request: HoldRequest): Hold | NotHeld {
    const notHeld = this.closing
      ? 'closing'
      : !this.wakeups.listening
        ? 'not_listening'
        : this.size >= this.limits.perProcess
          ? 'process_cap'
          : (this.perWorkspace.get(request.workspaceId) ?? 0) >= this.limits.perWorkspace[request.workspaceKind]
            ? 'workspace_cap'
            : undefined;
    if (notHeld) {
      this.refused.inc({ reason: notHeld });
      return notHeld;
    }
    const k = key(request.channel, request.target);
    const onGone = () => hold.wake('gone');
    const hold: Hold = new Hold(
      () => {
        const same = this.holds.get(k);
        if (!same?.delete(hold)) return;
        request.closed.off('close', onGone);
        if (same.size === 0) {
          this.holds.delete(k);
          clearTimeout(this.soon.get(k)?.timer);
          this.soon.delete(k);
        }
        const left = this.perWorkspace.get(request.workspaceId)! - 1;
        if (left === 0) this.perWorkspace.delete(request.workspaceId);
        else this.perWorkspace.set(request.workspaceId, left);
        this.size--;
      },
      (ms) => this.lookAgain(k, ms),
    );
    hold.endIn(request.ms);
    const same = this.holds.get(k) ?? new Set<Hold>();
    same.add(hold);
    this.holds.set(k, same);
    this.perWorkspace.set(request.workspaceId, (this.perWorkspace.get(request.workspaceId) ?? 0) + 1);
    this.size++;
    if (request.closed.destroyed) hold.wake('gone');
    else request.closed.once('close', onGone);
    return hold;
  }

  /** Answers every held request at once and holds no more: the process is stopping. */
  close(): void {
    this.closing = true;
    this.wakeAll('closing');
  }

  /**
   * Wakes every request held on `k` in `ms`, as a wake-up would, unless one is due sooner: for what
   * is committed but not readable yet, whose becoming readable wakes nothing (the feed's horizon,
   * docs/waiting.md). One timer and one wave for all the requests on a target.
   */
  private lookAgain(k: string, ms: number): void {
    const at = Date.now() + ms;
    const due = this.soon.get(k);
    if (due && due.at <= at) return;
    clearTimeout(due?.timer);
    const timer = setTimeout(() => {
      this.soon.delete(k);
      this.wakeTarget(k);
    }, ms);
    this.soon.set(k, { at, timer });
  }

  private wakeTarget(k: string): void {
    const wave: Wave = new Map();
    for (const hold of this.holds.get(k) ?? []) hold.wake('changed', wave);
  }

  private wakeChannel(channel: string): void {
    const prefix = key(channel, '');
    for (const k of this.holds.keys()) if (k.startsWith(prefix)) this.wakeTarget(k);
  }

  private wakeAll(woken: Woken): void {
    for (const holds of this.holds.values()) for (const hold of [...holds]) hold.wake(woken);
  }
}

const key = (channel: string, target: string): string => `${channel} ${target}`;
