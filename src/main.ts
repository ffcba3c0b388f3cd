import { createHash } from 'node:crypto';
import pino from 'pino';
import packageJson from '../package.json' with { type: 'json' };
import { DataKeyUnavailable, MigrationChanged, Wakeups, migrate, verify } from '../eventstore/index.js';
import { MIGRATION_FOLDERS, operatorCommands } from './capabilities.js';
import { systemClock } from './clock.js';
import { CommandRefused, HELP_FLAGS, UsageError, helpOf, usageLine, type CommandDescription } from './commandLine.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createContext } from './context.js';
import type { ServiceContext } from './serviceContext.js';
import { applyDevDefaults } from './devDefaults.js';
import { isDatabaseUnreachable } from './http/database.js';
import { createLogger } from './http/logging.js';
import { contractDocument } from './openapi.js';
import { ALL_ROLES, BACKGROUND_ROLES, ROLES, createPool, openDatabase, startService, type Database, type Role } from './service.js';
import { startTracing, type Tracing } from './tracing/index.js';

/**
 * The command line. Exit codes: 0 only on success (and after a graceful stop on SIGTERM or
 * SIGINT), 1 on a failure, 2 with the usage on an unknown command or a wrong argument. An
 * expected failure (configuration, an unreachable database, a port in use) prints its message;
 * only the unexpected print a stack trace.
 */

/** A command: how the usage describes it, and how it runs to an exit code (or serves until a signal). */
interface Command extends CommandDescription {
  run(args: string[], open: () => Promise<ServiceContext>): Promise<number | 'serving'>;
}

function noArguments(name: string, args: string[]): void {
  if (args.length > 0) throw new UsageError(`${name} takes no argument`);
}

/** `serve`, one role, or `worker`: runs until SIGTERM or SIGINT. */
const serving = (name: string, roles: readonly Role[], summary: string): Command => ({
  name,
  summary,
  async run(args) {
    noArguments(name, args);
    const config = await configFor(name);
    // Before anything that makes spans or statements: what starts later is traced.
    const tracing = await startTracing(process.env);
    const database = await openDatabase(config);
    if (database.development) {
      console.log(`development database: ${database.url} (in ${database.development.urlFile} while it runs: npm start -- <command> beside this process uses it)`);
    }
    try {
      await serve(roles, config, database, tracing);
    } catch (error) {
      await tracing?.shutdown().catch(() => undefined);
      await database.stop().catch(() => undefined);
      throw error;
    }
    return 'serving';
  },
});

/**
 * Every command, in the order the usage lists them: the service's own (its roles, migrate,
 * verify, the contract, the MCP server) and those the capabilities declare in their records.
 */
const COMMANDS: readonly Command[] = [
  serving('serve', ALL_ROLES, '(default) the HTTP API and every background role'),
  ...ROLES.map(({ role, summary }) => serving(role, [role], `${summary} (this role alone)`)),
  serving('worker', BACKGROUND_ROLES, `every background role: ${BACKGROUND_ROLES.join(', ')}`),
  {
    name: 'migrate',
    summary: 'apply the bundled SQL migrations',
    details: () => 'Each in its own transaction with its ledger row; an external database is migrated only by this, the embedded one also at start.',
    async run(args, open) {
      noArguments('migrate', args);
      console.log(`applied: ${(await migrate((await open()).store.pool, MIGRATION_FOLDERS)).join(', ') || 'nothing'}`);
      return 0;
    },
  },
  {
    name: 'verify',
    summary: "check every stream's hash chain",
    details: () => 'Exit 1 with each broken link listed.',
    async run(args, open) {
      noArguments('verify', args);
      const problems = await verify((await open()).store.pool);
      for (const p of problems) console.log(`${p.streamId} v${p.streamVersion}: ${p.problem}`);
      console.log(problems.length === 0 ? 'every chain verifies' : `${problems.length} problem(s)`);
      return problems.length === 0 ? 0 : 1;
    },
  },
  ...operatorCommands,
  {
    name: 'openapi',
    summary: "print the OpenAPI contract's SHA-256 (the committed copy is docs/openapi.json)",
    async run(args) {
      noArguments('openapi', args);
      console.log(createHash('sha256').update(await contractDocument(await configFor('openapi'))).digest('hex'));
      return 0;
    },
  },
  {
    name: 'mcp',
    summary: 'MCP server on stdio for agents (SVC_URL, SVC_API_KEY)',
    // A client of the service, not the service: no database, and nothing but MCP on stdout.
    async run(args) {
      noArguments('mcp', args);
      const { serveMcp } = await import('./mcp/server.js');
      await serveMcp(process.env, { name: packageJson.name, version: packageJson.version });
      return 'serving';
    },
  },
];

const USAGE = ['usage: svc [command] [--help]', ...COMMANDS.map(usageLine)].join('\n');

const SYSTEM_EXPECTED = new Set(['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES', 'ENOENT']);

const EXPECTED_ERRORS = [ConfigError, CommandRefused, MigrationChanged, DataKeyUnavailable];

function isExpected(error: unknown): boolean {
  if (EXPECTED_ERRORS.some((kind) => error instanceof kind) || isDatabaseUnreachable(error)) return true;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && SYSTEM_EXPECTED.has(code);
}

async function configFor(command: string): Promise<Config> {
  const config = loadConfig();
  if (config.production) return config;
  const dev = await applyDevDefaults(config);
  if (command === 'serve' || command === 'api') {
    console.log(`development secrets (generated once): ${dev.secretsFile}`);
    console.log(`owner key: ${dev.config.ownerKey}`);
    console.log(`public origin: ${dev.config.publicOrigin}`);
    console.log(`developer sign-in: ${dev.config.publicOrigin}/app/sign-in${dev.config.smtpUrl ? '' : ' (links are printed in the log)'}`);
  }
  return dev.config;
}

/**
 * The database and the service's context a one-shot command runs over, made when it first asks
 * (an audit or a usage error needs none), and closed after it: its pool, then the embedded
 * database when this process started it.
 */
function contextOnDemand(command: string): { open: () => Promise<ServiceContext>; close: () => Promise<void> } {
  let opened: Promise<{ ctx: ServiceContext; database: Database }> | undefined;
  const openOnce = async () => {
    const config = await configFor(command);
    const database = await openDatabase(config);
    const pool = createPool(database.url, 4, config.databasePooling);
    // Logs go to stderr: an export's stdout is its data.
    const log = createLogger({ destination: pino.destination(2) });
    const wakeups = new Wakeups(config.listenDatabaseUrl ?? database.url, log);
    return { ctx: createContext({ config, pool, clock: systemClock, log, wakeups }), database };
  };
  return {
    open: async () => (await (opened ??= openOnce())).ctx,
    async close() {
      const done = await opened?.catch(() => undefined);
      if (!done) return;
      await done.ctx.store.pool.end();
      await done.database.stop();
    },
  };
}

/**
 * Runs the roles until SIGTERM or SIGINT, then stops them gracefully (requests in flight are
 * answered, background roles stop, the pools close, the spans still batched are exported) and the
 * database last, and exits 0.
 */
async function serve(roles: readonly Role[], config: Config, database: Database, tracing: Tracing | undefined): Promise<void> {
  const started = startService(config, roles, { databaseUrl: database.url, migrateFirst: database.development !== undefined });
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      // A start that failed is reported (exit 1) by main, which also stops the database.
      const service = await started.catch(() => undefined);
      if (!service) return;
      service.ctx.log.info({ signal }, 'stopping');
      await service.close();
      await tracing?.shutdown();
      await database.stop();
      service.ctx.log.info({}, 'stopped');
      process.exit(0);
    })().catch((error: unknown) => exit(error));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  (await started).ctx.log.info({ roles }, 'started');
}

async function main(argv: string[]): Promise<number | 'serving'> {
  const [name = 'serve', ...args] = argv;
  if (name === 'help' || HELP_FLAGS.has(name)) {
    console.log(USAGE);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageError(`unknown command: ${name}`);
  if (args.some((arg) => HELP_FLAGS.has(arg))) {
    console.log(helpOf(command));
    return 0;
  }
  const { open, close } = contextOnDemand(name);
  try {
    return await command.run(args, open);
  } finally {
    await close();
  }
}

/** An error's own message; an AggregateError (every address refused) says it through its first. */
const messageOf = (error: Error): string => error.message || (error instanceof AggregateError ? messageOf(error.errors[0] as Error) : error.name);

function exit(error: unknown): never {
  if (error instanceof UsageError) {
    console.error(`svc: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
  console.error(isExpected(error) ? `svc: ${messageOf(error as Error)}` : error);
  process.exit(1);
}

main(process.argv.slice(2)).then((outcome) => {
  if (outcome !== 'serving') process.exit(outcome);
}, exit);
