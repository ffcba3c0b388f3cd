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
  },
});
