import pg from 'pg';
import type { DatabasePooling } from '../config.js';

/**
 * A connection that runs every statement unnamed. Hot statements are declared with a name
 * (eventstore `prepared()`) so that a connection of its own parses and plans each once; pg then
 * sends only Bind and Execute on later runs, which a transaction pooler would send to a server
 * connection that never saw the Parse ("prepared statement does not exist"). Unnamed, each run
 * carries its Parse in the same round trip: correct through any pooler, at the cost of parsing
 * and planning every time (the `pooling` bench measures it).
 */
class UnnamedStatementsClient extends pg.Client {
  // pg's overloads are many; this forwards every one unchanged but for a config object's name.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, ...rest: any[]): any {
    if (config !== null && typeof config === 'object' && typeof config.name === 'string' && typeof config.submit !== 'function') {
      const { name: _name, ...unnamed } = config as pg.QueryConfig;
      return super.query(unnamed, ...(rest as [unknown[]]));
    }
    return super.query(config, ...(rest as [unknown[]]));
  }
}

/** The connections a pool makes for DATABASE_URL reached this way. */
export const clientFor = (pooling: DatabasePooling): typeof pg.Client => (pooling === 'transaction' ? UnnamedStatementsClient : pg.Client);
