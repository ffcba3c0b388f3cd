import { Pool } from 'undici';
import { OPERATOR_WORKSPACE } from '../../src/auth/owner.js';
import { cloneOf, cloneStore, type CloneOptions } from '../../test/support/history.js';
import type { BenchDatabase } from './database.js';
import type { BenchService } from './service.js';
import { createSessions, submit } from './submissions.js';

/**
 * A large history of Sessions for the figures about a big store: five real Sessions made through
 * the API (three answered: session.created, then response.accepted; two left open), cloned
 * set-based into the tables by test/support/history.ts, each clone with its own ids, data keys,
 * views and revisions, all in the owner's workspace (1.6 events per Session).
 */

const ANSWERED = 3;
const OPEN = 2;
/** The events per seeded Session: what a caller sizes a seed by. */
export const EVENTS_PER_SESSION = (2 * ANSWERED + OPEN) / (ANSWERED + OPEN);

export interface SeedOptions {
  /** Full clones: 1.6 events each. */
  sessions: number;
  /** Lean clones beside them (none unless given): texts cut to a stub, never read. */
  lean?: number;
  /** Seal every full clone's content for its own id, so that it can be opened (a rebuild reads it). */
  openable?: boolean;
  /** What the planner knows of the seeded store (test/support/history.ts). */
  statistics: CloneOptions['statistics'];
}

export interface SeededHistory {
  /** Events in the store once seeded: the clones' and the templates'. */
  events: number;
  seconds: number;
  /** `count` distinct full clones' Session ids, drawn at random. */
  sample(count: number): string[];
}

async function templates(service: BenchService): Promise<string[]> {
  const http = new Pool(service.baseUrl, { connections: 1 });
  try {
    const sessions = await createSessions(http, service.ownerKey, ANSWERED + OPEN);
    for (const session of sessions.slice(0, ANSWERED)) await submit(http, session);
    return sessions.map((s) => s.id);
  } finally {
    await http.close();
  }
}

/** Seeds cloned Sessions into the service's database. */
export async function seedHistory(db: Pick<BenchDatabase, 'pool'>, service: BenchService, options: SeedOptions): Promise<SeededHistory> {
  const started = performance.now();
  const ids = await templates(service);
  const perClone = ids.length;
  const full = Math.ceil(options.sessions / perClone);
  const seeded = await cloneStore(db.pool, {
    clones: Math.ceil((options.sessions + (options.lean ?? 0)) / perClone),
    full,
    keep: [OPERATOR_WORKSPACE],
    statistics: options.statistics,
    ...(options.openable ? { openable: { streamKeys: service.ctx.streamKeys } } : {}),
  });
  return {
    events: seeded.events,
    seconds: (performance.now() - started) / 1000,
    sample(count) {
      const all = Array.from({ length: full }, (_, i) => ids.map((id) => cloneOf(id, i + 1))).flat();
      for (let i = all.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [all[i], all[j]] = [all[j]!, all[i]!];
      }
      return all.slice(0, count);
    },
  };
}
