import { createPool } from '../src/service.js';
import { benchDatabase } from './support/database.js';
import { startLoadGenerator } from './support/load.js';
import { startBenchService } from './support/service.js';
import { compareServices } from './support/twoServices.js';

/**
 * What the connection to a PostgreSQL on the same machine costs by its kind: two services over
 * one database, alike but for how their pool reaches the server, loopback TCP (as DATABASE_URL
 * names it) or the server's Unix socket (its first unix_socket_directories entry, asked of the
 * server), take accepted submissions and Session creations in turn, 8 clients each. Every
 * statement is a write and a read on that connection, on both sides of it.
 */

const db = await benchDatabase({ poolSize: 10 });
const { rows } = await db.pool.query<{ unix_socket_directories: string }>('SHOW unix_socket_directories');
const socketDir = rows[0]!.unix_socket_directories.split(',')[0]!.trim();
// The bench's own URL may name either (an embedded server's names its socket): both made from it.
const viaSocket = new URL(db.url);
viaSocket.searchParams.set('host', socketDir);
const viaTcp = new URL(db.url);
if (viaTcp.searchParams.has('host')) {
  viaTcp.searchParams.delete('host');
  viaTcp.hostname = '127.0.0.1';
}
const pools = [createPool(viaTcp.toString(), 10), createPool(viaSocket.toString(), 10)] as const;
const kinds = await Promise.all(pools.map(async (pool) => (await pool.query<{ tcp: boolean }>('SELECT inet_server_addr() IS NOT NULL AS tcp')).rows[0]!.tcp));
if (kinds[0] !== true || kinds[1] !== false) throw new Error(`the pools are not over TCP and a socket: ${viaTcp.host}, ${socketDir}`);
const tcp = await startBenchService(viaTcp.toString(), pools[0]);
const socket = await startBenchService(viaSocket.toString(), pools[1]);
const load = startLoadGenerator();

try {
  await compareServices(load, `the pool over loopback TCP and over the Unix socket (${socketDir})`, { service: tcp, label: 'loopback TCP' }, { service: socket, label: 'Unix socket' });
} finally {
  await load.close();
  await socket.close();
  await tcp.close();
  for (const pool of pools) await pool.end();
  await db.close();
}
