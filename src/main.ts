import { createHash } from 'node:crypto';
import pino from 'pino';
import packageJson from '../package.json' with { type: 'json' };
import { DataKeyUnavailable, MigrationChanged, Wakeups, migrate, verify } from '../eventstore/index.js';
import { AUDIT_USAGE, auditCommand, checkpointCommand, exportCommand } from './audit/index.js';
import { MIGRATION_FOLDERS, serviceParts } from './capabilities.js';
import { systemClock } from './clock.js';
import { CommandRefused, UsageError } from './commandLine.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createContext } from './context.js';
import type { ServiceContext } from './serviceContext.js';
import { applyDevDefaults } from './devDefaults.js';
import { isDatabaseUnreachable } from './http/database.js';
import { createLogger } from './http/logging.js';
import { contractDocument } from './openapi.js';
import { rebuildCommand, rekeyCommand, statusCommand } from './ops/index.js';
import { eraseCommand } from './purge/index.js';
import { ALL_ROLES, BACKGROUND_ROLES, createPool, openDatabase, startService, type Database, type Role } from './service.js';

/**
 * The command line. Exit codes: 0 only on success (and after a graceful stop on SIGTERM or
 * SIGINT), 1 on a failure, 2 with the usage on an unknown command or a wrong argument. An
 * expected failure (configuration, an unreachable database, a port in use) prints its message;
 * only the unexpected print a stack trace.
 */

const USAGE = `usage: svc [command]
  serve (default)     HTTP API and every background role
  api | projector | dispatcher | purger | checkpointer   one role alone (any number of copies may run)
  worker              every background role: projector, dispatcher, purger, checkpointer
  migrate             apply the bundled SQL migrations
  rebuild NAME | --all [--json]  replay the log into projection NAME (or every one) and swap it in
  rekey [--json]      wrap every stream key again under the first key of SVC_DATA_KEYS
  verify              check every stream's hash chain
  status [--json]     projections, deliveries, purge backlog, checkpoint age, migrations, data keys
  erase SESSION_ID    purge one Session now (a data-subject request); again: says it was purged
${AUDIT_USAGE}
  openapi             print the OpenAPI contract's SHA-256 (the committed copy is docs/openapi.json)
  mcp                 MCP server on stdio for agents (SVC_URL, SVC_API_KEY)`;

/** Commands run once against the database the environment names, beside a running service; each checks its own arguments. */
const OPERATOR_COMMANDS = new Map<string, (ctx: ServiceContext, args: string[]) => Promise<number>>([
  ['export', exportCommand],
  ['checkpoint', checkpointCommand],
  ['status', (ctx, args) => statusCommand(ctx, args, serviceParts)],
  ['rebuild', (ctx, args) => rebuildCommand(ctx, args, serviceParts)],
  ['rekey', rekeyCommand],
  [
    'erase',
    async (ctx, args) => {
      if (args.length !== 1) throw new UsageError('erase takes one SESSION_ID');
      const erased = await eraseCommand(ctx, args[0]!);
      (erased.exitCode === 0 ? console.log : console.error)(erased.message);
      return erased.exitCode;
    },
  ],
]);

/** How many arguments each of the other commands takes after its name. */
const ARITY: Record<string, number> = { ...Object.fromEntries(ALL_ROLES.map((role) => [role, 0])), serve: 0, worker: 0, migrate: 0, verify: 0, openapi: 0 };

/** The roles a serving command runs. */
const rolesOf = (command: string): readonly Role[] => (command === 'serve' ? ALL_ROLES : command === 'worker' ? BACKGROUND_ROLES : [command as Role]);
const HELP = new Set(['help', '--help', '-h']);

const SYSTEM_EXPECTED = new Set(['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES', 'ENOENT']);

const EXPECTED_ERRORS = [ConfigError, CommandRefused, MigrationChanged, DataKeyUnavailable];

function isExpected(error: unknown): boolean {
  if (EXPECTED_ERRORS.some((kind) => error instanceof kind) || isDatabaseUnreachable(error)) return true;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && SYSTEM_EXPECTED.has(code);
}

function parseCommand(argv: string[]): { command: string; args: string[] } {
  const [command = 'serve', ...args] = argv;
  if (OPERATOR_COMMANDS.has(command)) return { command, args };
  const arity = ARITY[command];
  if (arity === undefined) throw new UsageError(`unknown command: ${command}`);
  if (args.length !== arity) throw new UsageError(`${command} takes ${arity === 0 ? 'no argument' : `${arity} argument`}`);
  return { command, args };
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

/** migrate, verify and the operator commands: one pass over the database; the exit code. */
async function runOnce(command: string, args: string[], config: Config, database: Database): Promise<number> {
  const pool = createPool(database.url, 4, config.databasePooling);
  try {
    const operate = OPERATOR_COMMANDS.get(command);
    if (operate) {
      // Logs go to stderr: an export's stdout is its data.
      const log = createLogger({ destination: pino.destination(2) });
      return await operate(createContext({ config, pool, clock: systemClock, log, wakeups: new Wakeups(config.listenDatabaseUrl ?? database.url, log) }), args);
    }
    if (command === 'migrate') {
      console.log(`applied: ${(await migrate(pool, MIGRATION_FOLDERS)).join(', ') || 'nothing'}`);
      return 0;
    }
    const problems = await verify(pool);
    for (const p of problems) console.log(`${p.streamId} v${p.streamVersion}: ${p.problem}`);
    console.log(problems.length === 0 ? 'every chain verifies' : `${problems.length} problem(s)`);
    return problems.length === 0 ? 0 : 1;
  } finally {
    await pool.end();
  }
}

/**
 * Runs the roles until SIGTERM or SIGINT, then stops them gracefully (requests in flight are
 * answered, background roles stop, the pools close) and the database last, and exits 0.
 */
async function serve(roles: readonly Role[], config: Config, database: Database): Promise<void> {
  const started = startService(config, roles, { databaseUrl: database.url, migrateFirst: database.embedded });
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
  const [first] = argv;
  if (first === 'mcp') {
    // A client of the service, not the service: no database, and nothing but MCP on stdout.
    const { serveMcp } = await import('./mcp/server.js');
    await serveMcp(process.env, { name: packageJson.name, version: packageJson.version });
    return 'serving';
  }
  // The audit needs no database, no service and no configuration: only the files it is given.
  if (first === 'audit') return auditCommand(argv.slice(1));
  const { command, args } = parseCommand(argv);
  const config = await configFor(command);
  if (command === 'openapi') {
    console.log(createHash('sha256').update(await contractDocument(config)).digest('hex'));
    return 0;
  }
  const database = await openDatabase(config);
  if (command === 'migrate' || command === 'verify' || OPERATOR_COMMANDS.has(command)) {
    try {
      return await runOnce(command, args, config, database);
    } finally {
      await database.stop();
    }
  }
  try {
    await serve(rolesOf(command), config, database);
  } catch (error) {
    await database.stop().catch(() => undefined);
    throw error;
  }
  return 'serving';
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

if (HELP.has(process.argv[2] ?? '')) {
  console.log(USAGE);
} else {
  main(process.argv.slice(2)).then((outcome) => {
    if (outcome !== 'serving') process.exit(outcome);
  }, exit);
}
