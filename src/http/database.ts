import type pg from 'pg';

/**
 * A database that cannot be reached is an outage, not a fault of the request: it answers 503
 * SERVICE_UNAVAILABLE with Retry-After, and the operator reads about it once, not once a request.
 */

/** Socket errors of a connection that could not be made or was cut. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/**
 * SQLSTATE class 08 (connection exception) and 57P01 to 57P05 (the server shutting down, crashed,
 * starting up, the database dropped, an idle session ended).
 */
const UNREACHABLE_STATE = /^(08|57P0)/;

/**
 * node-postgres reports a connection lost mid-query, and a pool that cannot connect in time, with
 * these messages and no code: the message is all there is to go on.
 */
const CONNECTION_LOST = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
]);

export function isDatabaseUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNREACHABLE_STATE.test(code))) return true;
  if (CONNECTION_LOST.has(error.message)) return true;
  // AggregateError: every address of the host refused (ECONNREFUSED on ::1 and on 127.0.0.1).
  return error instanceof AggregateError && error.errors.some(isDatabaseUnreachable);
}

interface WarnLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Logs the first unreachable-database failure of an outage at warn level and stays quiet until
 * the pool connects again, which ends the outage.
 */
export class OutageLog {
  private down = false;
  private readonly onConnect = (): void => {
    if (!this.down) return;
    this.down = false;
    this.log.info({}, 'database reachable again');
  };

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: WarnLog,
  ) {
    pool.on('connect', this.onConnect);
  }

  report(error: unknown): void {
    if (this.down) return;
    this.down = true;
    this.log.warn({ err: error }, 'database unreachable: answering 503 until it is back');
  }

  close(): void {
    this.pool.off('connect', this.onConnect);
  }
}
