import { createPool } from '../src/service.js';
import { benchDatabase } from './support/database.js';
import { startLoadGenerator } from './support/load.js';
import { heading, printFigure, ratios } from './support/result.js';
import { interleave, type Contender } from './support/rounds.js';
import { startBenchService, type BenchService } from './support/service.js';
import { creationsContender, submissionsContender } from './support/submitting.js';

/**
 * What the connection to a PostgreSQL on the same machine costs by its kind: two services over
 * one database, alike but for how their pool reaches the server, loopback TCP (as DATABASE_URL
 * names it) or the server's Unix socket (its first unix_socket_directories entry, asked of the
 * server), take accepted submissions and Session creations in turn, 8 clients each. Every
 * statement is a write and a read on that connection, on both sides of it.
 */

const CLIENTS = 8;

const db = await benchDatabase({ poolSize: 10 });
const { rows } = await db.pool.query<{ unix_socket_directories: string }>('SHOW unix_socket_directories');
const socketDir = rows[0]!.unix_socket_directories.split(',')[0]!.trim();
const viaSocket = new URL(db.url);
viaSocket.searchParams.set('host', socketDir);
const socketPool = createPool(viaSocket.toString(), 10);
await socketPool.query('SELECT 1');
const tcp = await startBenchService(db.url, db.pool);
const socket = await startBenchService(viaSocket.toString(), socketPool);
const load = startLoadGenerator();

const creations = (service: BenchService, label: string): Contender =>
  creationsContender(load, service, { clients: CLIENTS, label: `POST /v1/sessions, ${label}` });
const submissions = (service: BenchService, label: string): Contender =>
  submissionsContender(load, service, { clients: CLIENTS, label: `POST /s/{token} accepted, ${label}` });

async function compare(name: string, contender: (service: BenchService, label: string) => Contender): Promise<void> {
  heading(`${name}, ${CLIENTS} clients: the pool over loopback TCP and over the Unix socket (${socketDir})`);
  const results = await interleave({ tcp: contender(tcp, 'loopback TCP'), socket: contender(socket, 'Unix socket') });
  printFigure({ name: `${name}, Unix socket / loopback TCP`, values: ratios(results.socket, results.tcp) });
}

try {
  await compare('POST /s/{token} accepted', submissions);
  await compare('POST /v1/sessions', creations);
} finally {
  await load.close();
  await socket.close();
  await tcp.close();
  await socketPool.end();
  await db.close();
}
