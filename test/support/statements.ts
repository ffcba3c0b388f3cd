import type pg from 'pg';

/**
 * The statements sent on the pool's connections checked out during `work`, but the wake-ups (they
 * go after its commit, coalesced with other commits'): a prepared one by its name, any other by
 * its first word.
 */
export async function statementsOf(pool: pg.Pool, work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const record = (client: pg.PoolClient) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const [statement] = args as [string | { name?: string; text: string }];
      const text = typeof statement === 'string' ? statement : statement.text;
      if (!text.includes('pg_notify')) sent.push(typeof statement === 'string' ? text.trim().split(/\s/)[0]! : (statement.name ?? text.trim().split(/\s/)[0]!));
      return query(...args);
    };
  };
  const unwrap = new Map<pg.PoolClient, unknown>();
  const onAcquire = (client: pg.PoolClient) => {
    if (unwrap.has(client)) return;
    unwrap.set(client, client.query);
    record(client);
  };
  pool.on('acquire', onAcquire);
  try {
    await work();
  } finally {
    pool.off('acquire', onAcquire);
    for (const [client, query] of unwrap) (client as unknown as { query: unknown }).query = query;
  }
  return sent;
}
