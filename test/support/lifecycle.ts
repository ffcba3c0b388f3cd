import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startTestApp, type TestApp, type TestAppOptions } from './app.js';
import { createTestDatabase, type TestDatabase } from './database.js';

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
        await t.close();
        await db.drop();
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

/** The database that `read` gives when asked, member by member. */
function late(read: () => TestDatabase): TestDatabase {
  return {
    get url() {
      return read().url;
    },
    get pool() {
      return read().pool;
    },
    get adminUrl() {
      return read().adminUrl;
    },
    drop: () => read().drop(),
  };
}

/** The database of a file that needs no app: made before its tests, dropped after them. */
export function useTestDatabase(): TestDatabase {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  return late(() => made(db));
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
  const t = (): TestApp => made(opened).t;
  return {
    db: late(() => made(opened).db),
    t: {
      get app() {
        return t().app;
      },
      get ctx() {
        return t().ctx;
      },
      get clock() {
        return t().clock;
      },
      close: () => t().close(),
    },
  };
}
