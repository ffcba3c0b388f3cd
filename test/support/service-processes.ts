import { afterEach } from 'vitest';
import type { Config } from '../../src/config.js';
import { DELIVERIES_CHANNEL } from '../../src/webhooks/index.js';
import type { TestDatabase } from './database.js';
import { freePort, serviceEnv, startServiceProcess, type ServiceProcess } from './processes.js';

/**
 * Service processes of a test (`node --import tsx src/main.ts <role>`) over its database, on the
 * system clock, trusting the test receiver's authority through NODE_EXTRA_CA_CERTS, each killed
 * after the test. Dispatchers connect as DISPATCHER_APP, so the test can find their connections.
 */

const DISPATCHER_APP = 'svc-test-dispatcher';

export interface ServiceProcesses {
  dispatcher(): Promise<ServiceProcess>;
  /** Every background role in one process (`worker`); `extra` adds to its environment. */
  worker(extra?: Record<string, string>): Promise<ServiceProcess>;
  /** An API process on a port of its own; `extra` adds to its environment. */
  api(extra?: Record<string, string>): Promise<ServiceProcess>;
  /** The backend pids of the dispatchers' listening connections (one per live dispatcher). */
  listeners(): Promise<number[]>;
  /**
   * Reads until `done` holds, at most `rounds` times 200 ms; fails with the processes' output if a
   * process exits meanwhile or the bound is reached.
   */
  until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, rounds?: number): Promise<T>;
}

export function useServiceProcesses(db: TestDatabase, config: Config): ServiceProcesses {
  const children: ServiceProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) await child.kill();
  });
  const env = (port: number, extra: Record<string, string> = {}) => ({
    ...serviceEnv(config, db.url, port),
    SVC_WEBHOOK_TEST_EGRESS: 'loopback',
    NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS!,
    ...extra,
  });
  const started = (child: ServiceProcess) => {
    children.push(child);
    return child;
  };
  const output = () => children.map((c) => c.output()).join('\n');
  return {
    dispatcher: async () => started(await startServiceProcess('dispatcher', env(0, { PGAPPNAME: DISPATCHER_APP }), { waitForHttp: false })),
    worker: async (extra) => started(await startServiceProcess('worker', env(0, extra), { waitForHttp: false })),
    api: async (extra) => started(await startServiceProcess('api', env(await freePort(), extra))),
    async listeners() {
      const { rows } = await db.pool.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND query ILIKE $2 ORDER BY pid`,
        [DISPATCHER_APP, `LISTEN%${DELIVERIES_CHANNEL}%`],
      );
      return rows.map((r) => r.pid);
    },
    async until(read, done, what, rounds = 300) {
      for (let round = 0; round < rounds; round++) {
        const value = await read();
        if (done(value)) return value;
        if (children.some((c) => c.child.exitCode !== null)) throw new Error(`a service process exited while waiting for ${what}:\n${output()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(`no ${what} after ${rounds} reads:\n${output()}`);
    },
  };
}
