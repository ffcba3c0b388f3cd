import { createHash } from 'node:crypto';
import { loadConfig } from './config.js';
import { applyDevDefaults } from './devDefaults.js';
import { ALL_ROLES, createPool, openDatabase, startService, type Role } from './service.js';
import { Wakeups, migrate, verify } from '../eventstore/index.js';
import { rebuild } from '../projections/index.js';
import { systemClock } from './clock.js';
import { createContext } from './context.js';
import { createLogger } from './http/logging.js';
import { asyncProjections, inlineProjections } from './projections.js';
import { contractDocument } from './openapi.js';

const USAGE = `usage: svc [command]
  serve (default)     HTTP API and every background role
  api | projector | dispatcher   one role alone (any number of copies may run)
  migrate             apply the bundled SQL migrations
  rebuild NAME        replay the log into projection NAME and swap it in
  verify              check every stream's hash chain
  openapi             print the OpenAPI contract's SHA-256 (the committed copy is docs/openapi.json)`;

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...args] = argv;
  let config = loadConfig();
  if (!config.production) {
    const dev = await applyDevDefaults(config);
    config = dev.config;
    if (['serve', 'api'].includes(command)) {
      console.log(`development secrets (generated once): ${dev.secretsFile}`);
      console.log(`owner key: ${config.ownerKey}`);
      console.log(`public origin: ${config.publicOrigin}`);
    }
  }

  if (command === 'openapi') {
    const document = await contractDocument(config);
    console.log(createHash('sha256').update(document).digest('hex'));
    return;
  }

  const database = await openDatabase(config);
  const stopDatabase = async () => database.stop();

  if (command === 'migrate' || command === 'verify' || command === 'rebuild') {
    const pool = createPool(database.url, 2);
    try {
      if (command === 'migrate') console.log(`applied: ${(await migrate(pool)).join(', ') || 'nothing'}`);
      if (command === 'verify') {
        const problems = await verify(pool);
        for (const p of problems) console.log(`${p.streamId} v${p.streamVersion}: ${p.problem}`);
        console.log(problems.length === 0 ? 'every chain verifies' : `${problems.length} problem(s)`);
        process.exitCode = problems.length === 0 ? 0 : 1;
      }
      if (command === 'rebuild') {
        const log = createLogger();
        const ctx = createContext({ config, pool, clock: systemClock, log, wakeups: new Wakeups(database.url, log) });
        const name = args[0];
        const inline = inlineProjections(ctx).find((p) => p.name === name);
        const projection = inline ?? asyncProjections(ctx).find((p) => p.name === name);
        if (!projection) throw new Error(`no projection named ${name}`);
        console.log(`rebuilt ${name} from ${await rebuild(pool, projection, { async: !inline })} events`);
      }
    } finally {
      await pool.end();
      await stopDatabase();
    }
    return;
  }

  const roles: readonly Role[] = command === 'serve' ? ALL_ROLES : (ALL_ROLES.filter((r) => r === command) as Role[]);
  if (roles.length === 0) {
    console.error(USAGE);
    process.exitCode = 2;
    await stopDatabase();
    return;
  }
  const service = await startService(config, roles, { databaseUrl: database.url, migrateFirst: database.embedded });
  const shutdown = async () => {
    await service.close();
    await stopDatabase();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
