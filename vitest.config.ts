import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'property-tests/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Every file gets a database of its own, so files run in parallel safely.
    fileParallelism: true,
    // Test files mostly wait (on PostgreSQL, child processes, receivers, timers), so more files run
    // at once than there are cores; the default is one fewer than the cores, a single file on two.
    maxWorkers: 3,
    // A worker runs file after file in one module graph rather than importing the whole service
    // again for each (half the suite's CPU went to that). Files share only what they leave behind:
    // each makes its own database and app, and puts back any process state it changes.
    isolate: false,
    // With isolate off, vitest 3.2 lets tinypool shrink the pool while a worker still holds files,
    // reported as "Terminating worker thread" and leaving that worker running: keep the pool whole.
    minWorkers: 3,
  },
});
