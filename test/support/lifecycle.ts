import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startTestApp, type TestApp, type TestAppOptions } from './app.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { freePort } from './processes.js';

/**
 * The set-up test files share: a database of their own, and the real app over it. The `use…`
 * functions register the hooks that make and remove them and return them at once, to be held from
 * the top of the file: each member reads what the hooks made, so it works in any test or later hook.
 */

export interface OpenedTestApp {
  db: TestDatabase;
  t: TestApp;
  /** Stops the app, then drops its database. */
  close(): Promise<void>;
}

/** A new database and the app over it. */
export async function openTestApp(options: TestAppOptions = {}): Promise<OpenedTestApp> {
  const db = await createTestDatabase();
  try {
    const t = await startTestApp(db, options);
    return {
      db,
      t,
      async close() {
        try {
          await t.close();
        } finally {
          await db.drop();
        }
      },
    };
  } catch (error) {
    await db.drop();
    throw error;
  }
}

/** What a hook made, once it has; read too early, a clear error rather than undefined. */
export function made<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('made by a beforeAll or beforeEach hook: read it inside a test or a later hook');
  return value;
}

/**
 * An object whose members are those of `read()` at the moment each is read, so that it can be held
 * from the top of a file while a hook makes the real one. `members` names every member; the type
 * checks that none is missing.
 */
export function readThrough<T extends object>(read: () => T, members: Record<keyof T, true>): T {
  const view = {};
  for (const key of Object.keys(members) as Array<keyof T>) {
    Object.defineProperty(view, key, {
      enumerable: true,
      get: () => {
        const target = read();
        const value = target[key];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
  return view as T;
}

const DATABASE: Record<keyof TestDatabase, true> = { url: true, pool: true, adminUrl: true, drop: true };
const APP: Record<keyof TestApp, true> = { app: true, ctx: true, clock: true, close: true };

/** The database of a file that needs no app: made before its tests, dropped after them. */
export function useTestDatabase(): TestDatabase {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  return readThrough(() => made(db), DATABASE);
}

/**
 * A database and the app over it, for the whole file or anew for each test. Options that must be
 * worked out when the hook runs (a free port, a clock at that moment) are given as a function.
 */
export function useTestApp(
  options: TestAppOptions | (() => TestAppOptions | Promise<TestAppOptions>) = {},
  scope: 'file' | 'each test' = 'file',
): { db: TestDatabase; t: TestApp } {
  let opened: OpenedTestApp | undefined;
  const [before, after] = scope === 'file' ? [beforeAll, afterAll] : [beforeEach, afterEach];
  before(async () => {
    opened = await openTestApp(typeof options === 'function' ? await options() : options);
  });
  after(async () => {
    await opened?.close();
    opened = undefined;
  });
  return { db: readThrough(() => made(opened).db, DATABASE), t: readThrough(() => made(opened).t, APP) };
}

/** The app listening on a free port that is also its public origin, so human links and receipts name it. */
export async function listeningApp(): Promise<TestAppOptions> {
  const port = await freePort();
  return { listen: true, config: { port, publicOrigin: `http://127.0.0.1:${port}` } };
}
