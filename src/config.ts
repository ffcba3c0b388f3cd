import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { INITIAL_KEY_ID, parseDataKey, type DataKey } from '../eventstore/index.js';

/**
 * How DATABASE_URL reaches PostgreSQL. `transaction`: through a pooler in transaction mode
 * (PgBouncer's `pool_mode = transaction`), which hands each transaction whichever server
 * connection is free, so nothing may outlive a transaction on a connection: no session setting, no
 * session lock, no LISTEN (those use the direct connection, SVC_LISTEN_DATABASE_URL), and no named
 * prepared statement. `none`: a connection is the client's own for as long as it is open.
 */
export type DatabasePooling = 'none' | 'transaction';

/**
 * Everything the service reads from its environment, read once. Explicit variables always win;
 * the development defaults (secrets, build identity) are filled in by devDefaults.ts, never here.
 */
export interface Config {
  production: boolean;
  /** Unset: the embedded PostgreSQL under dataDir. */
  databaseUrl: string | undefined;
  /** The direct connection for LISTEN and the wake-up fence (SVC_LISTEN_DATABASE_URL); unset: databaseUrl. */
  listenDatabaseUrl: string | undefined;
  /** `transaction` when databaseUrl goes through a transaction pooler (SVC_DATABASE_POOLING): no statement is named. */
  databasePooling: DatabasePooling;
  dataDir: string;
  host: string;
  port: number;
  publicOrigin: string;
  ownerKey: string | undefined;
  /** Raw JWK Set JSON; parsed and checked by receiptKeys.ts. */
  receiptKeys: string | undefined;
  /**
   * The deployment data keys as SVC_DATA_KEYS writes them (`id:base64url` pairs, comma-separated,
   * the wrapping key first; SVC_DATA_KEY alone is the pair `initial:<it>`), checked at start and
   * read into keys by dataKeysOf.
   */
  dataKeys: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string | undefined;
  trial: boolean;
  /**
   * Which proxies' X-Forwarded-For is believed when finding the client's address for per-client
   * limits: a hop count (0: none, the socket's peer is the client), or the proxies' addresses and
   * CIDR ranges. Never every hop: the left-most entries are whatever the client wrote.
   */
  trustProxy: number | string[];
  build: BuildSources;
  /** `loopback` lets webhook deliveries reach https on 127.0.0.1 (tests only). */
  webhookTestEgress: 'loopback' | undefined;
  /**
   * The host names a workspace's Slack webhook URL may name (SVC_SLACK_WEBHOOK_HOSTS): Slack's own
   * by default. Checked when the URL is set and again before each message; the egress rules of
   * webhooks apply to the connection besides.
   */
  slackWebhookHosts: string[];
  /** How often the checkpointer signs a log checkpoint (SVC_CHECKPOINT_INTERVAL_S). */
  checkpointIntervalS: number;
  /** On SIGTERM or SIGINT, how long requests in flight may take to finish before they are cut. */
  shutdownTimeoutMs: number;
  /** The Bearer credential that scrapes /metrics (SVC_METRICS_TOKEN); unset: nobody scrapes. */
  metricsToken: string | undefined;
  /** Where a process without the api role serves /metrics and health (SVC_METRICS_PORT); unset: it serves nothing. */
  metricsPort: number | undefined;
}

/** A configuration the service cannot run with; its message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface BuildSources {
  gitSha: string | undefined;
  buildId: string | undefined;
  buildTime: string | undefined;
  /** Where the BUILD_ID and BUILD_TIME files are looked for. */
  root: string;
  /** Development only: used when neither the variable nor the file gives a value. */
  fallback?: { gitSha?: string; buildId?: string; buildTime?: string };
}

type Env = Record<string, string | undefined>;

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value);

/** The names proxy-addr (fastify's trustProxy) accepts for address ranges. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

const TRUST_PROXY_VALUES =
  'a hop count (how many proxies stand in front of the service; 0 or unset: none) or the proxies\' addresses and CIDR ranges ' +
  `separated by commas (${PROXY_RANGE_NAMES.join(', ')} name ranges)`;

/**
 * More proxies than any deployment chains in front of a service: a larger count trusts hops the
 * client wrote itself, as `true` would.
 */
const MAX_PROXY_HOPS = 10;

/** An address as written in full (four decimal parts for IPv4: `1.5` is no proxy's address). */
const isAddress = (text: string): boolean => ipaddr.IPv4.isValidFourPartDecimal(text) || (text.includes(':') && ipaddr.IPv6.isValid(text));

/** A proxy's address, a CIDR range of them (a /0 would trust every address, as `true` would), or a range's name. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', bits, ...extra] = entry.split('/');
  if (!isAddress(address) || extra.length > 0) return false;
  return bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) > 0 && Number(bits) <= (address.includes(':') ? 128 : 32));
}

function trustProxyOf(value: string | undefined): Config['trustProxy'] {
  if (value === undefined || value === 'false') return 0;
  const everyHop = 'trusting every hop lets a client choose the address its limits count';
  if (value === 'true') throw new ConfigError(`SVC_TRUST_PROXY must be ${TRUST_PROXY_VALUES}; true is refused: ${everyHop}`);
  if (/^[0-9]+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_PROXY_HOPS) throw new ConfigError(`SVC_TRUST_PROXY must be a hop count of at most ${MAX_PROXY_HOPS}; ${value} is refused: ${everyHop}`);
    return hops;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const wrong = entries.find((entry) => !isProxyEntry(entry));
  if (wrong !== undefined) throw new ConfigError(`SVC_TRUST_PROXY must be ${TRUST_PROXY_VALUES}, a range narrower than /0; got ${JSON.stringify(wrong)}`);
  return entries;
}

/** The shortest owner key served: one that short of random bytes can be guessed. */
export const MIN_OWNER_KEY_LENGTH = 32;

function ownerKeyOf(value: string | undefined): string | undefined {
  if (value !== undefined && value.length < MIN_OWNER_KEY_LENGTH) {
    throw new ConfigError(`SVC_OWNER_KEY must be at least ${MIN_OWNER_KEY_LENGTH} characters (for example svc_owner_ and 32 random bytes in base64url)`);
  }
  return value;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const KEY_FORMAT = 'exactly 32 random bytes in base64url (for example the output of `openssl rand 32 | basenc --base64url`)';

/**
 * The deployment data keys SVC_DATA_KEYS holds: `id:key` pairs separated by commas, each key
 * base64url of exactly 32 bytes, each id and each key once; the first wraps every new stream key.
 * Empty when unset (in production the service is then not ready, and every route that needs a key
 * answers 503). The one place data keys are read from the configuration: at start, where a
 * malformed list stops the service, and by the composition root. Errors quote no entry: a key
 * pasted where its id goes would be printed.
 */
export function dataKeysOf(config: Pick<Config, 'dataKeys'>): DataKey[] {
  if (config.dataKeys === undefined) return [];
  const keys = config.dataKeys.split(',').map((entry, i): DataKey => {
    const [id = '', encoded, ...extra] = entry.trim().split(':');
    const key = extra.length === 0 ? parseDataKey(encoded) : undefined;
    if (!KEY_ID.test(id) || !key) {
      throw new ConfigError(
        `SVC_DATA_KEYS must be id:key pairs separated by commas, each id letters, digits, '.', '_' or '-' (at most 64), ` +
          `each key ${KEY_FORMAT}; entry ${i + 1} is not`,
      );
    }
    return { id, key };
  });
  keys.forEach((k, i) => {
    const twin = keys.findIndex((other) => other.id === k.id || other.key.equals(k.key));
    if (twin !== i) throw new ConfigError(`SVC_DATA_KEYS: entries ${twin + 1} and ${i + 1} ${keys[twin]!.id === k.id ? `both have the id ${k.id}` : 'hold the same key'}`);
  });
  return keys;
}

/** SVC_DATA_KEYS, or SVC_DATA_KEY alone as the list of its one key, `initial`; both at once is refused. */
function dataKeysVariable(env: Env): string | undefined {
  const keys = nonEmpty(env.SVC_DATA_KEYS);
  const key = nonEmpty(env.SVC_DATA_KEY);
  if (key === undefined) return keys;
  if (keys !== undefined) throw new ConfigError(`set SVC_DATA_KEYS or SVC_DATA_KEY, not both (SVC_DATA_KEY=<key> is SVC_DATA_KEYS=${INITIAL_KEY_ID}:<key>)`);
  if (!parseDataKey(key)) throw new ConfigError(`SVC_DATA_KEY must be ${KEY_FORMAT}`);
  return `${INITIAL_KEY_ID}:${key}`;
}

/** Slack's incoming webhooks are served from this host alone. */
const SLACK_HOSTS = ['hooks.slack.com'];
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** SVC_SLACK_WEBHOOK_HOSTS: host names separated by commas, lower case, no port (every connection is to 443). */
function slackHostsOf(value: string | undefined): string[] {
  if (value === undefined) return SLACK_HOSTS;
  const hosts = value.split(',').map((host) => host.trim());
  const wrong = hosts.find((host) => !HOST_NAME.test(host));
  if (wrong !== undefined) throw new ConfigError(`SVC_SLACK_WEBHOOK_HOSTS must be host names separated by commas (lower case, no port or scheme); got ${JSON.stringify(wrong)}`);
  return hosts;
}

function portOf(name: string, value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`${name} must be a port number, got ${value}`);
  return port;
}

export function loadConfig(env: Env = process.env): Config {
  const host = nonEmpty(env.HOST) ?? '127.0.0.1';
  const port = portOf('PORT', nonEmpty(env.PORT) ?? '8080');
  const metricsPort = nonEmpty(env.SVC_METRICS_PORT);
  const trial = nonEmpty(env.SVC_TRIAL) ?? 'on';
  if (trial !== 'on' && trial !== 'off') throw new ConfigError(`SVC_TRIAL must be on or off, got ${trial}`);
  const egress = nonEmpty(env.SVC_WEBHOOK_TEST_EGRESS);
  if (egress !== undefined && egress !== 'loopback') throw new ConfigError(`SVC_WEBHOOK_TEST_EGRESS may only be loopback`);
  const checkpointIntervalS = Number(nonEmpty(env.SVC_CHECKPOINT_INTERVAL_S) ?? 300);
  if (!Number.isInteger(checkpointIntervalS) || checkpointIntervalS < 1) {
    throw new ConfigError(`SVC_CHECKPOINT_INTERVAL_S must be a whole number of seconds, got ${env.SVC_CHECKPOINT_INTERVAL_S}`);
  }
  const shutdownTimeoutMs = Number(nonEmpty(env.SVC_SHUTDOWN_TIMEOUT_MS) ?? 10_000);
  if (!Number.isSafeInteger(shutdownTimeoutMs) || shutdownTimeoutMs < 0) {
    throw new ConfigError(`SVC_SHUTDOWN_TIMEOUT_MS must be a number of milliseconds, got ${env.SVC_SHUTDOWN_TIMEOUT_MS}`);
  }
  const pooling = nonEmpty(env.SVC_DATABASE_POOLING) ?? 'none';
  if (pooling !== 'none' && pooling !== 'transaction') throw new ConfigError(`SVC_DATABASE_POOLING must be none or transaction, got ${pooling}`);
  if (nonEmpty(env.SVC_LISTEN_DATABASE_URL) && !nonEmpty(env.DATABASE_URL)) throw new ConfigError('SVC_LISTEN_DATABASE_URL needs DATABASE_URL');
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const dataKeys = dataKeysVariable(env);
  dataKeysOf({ dataKeys });
  return {
    production: env.NODE_ENV === 'production',
    databaseUrl: nonEmpty(env.DATABASE_URL),
    listenDatabaseUrl: nonEmpty(env.SVC_LISTEN_DATABASE_URL),
    databasePooling: pooling,
    dataDir: resolve(nonEmpty(env.SVC_DATA_DIR) ?? './.data'),
    host,
    port,
    publicOrigin: (nonEmpty(env.SVC_PUBLIC_ORIGIN) ?? `http://${urlHost}:${port}`).replace(/\/+$/, ''),
    ownerKey: ownerKeyOf(nonEmpty(env.SVC_OWNER_KEY)),
    receiptKeys: nonEmpty(env.SVC_RECEIPT_KEYS),
    dataKeys,
    smtpUrl: nonEmpty(env.SVC_SMTP_URL),
    mailFrom: nonEmpty(env.SVC_MAIL_FROM),
    trial: trial === 'on',
    trustProxy: trustProxyOf(nonEmpty(env.SVC_TRUST_PROXY)),
    build: {
      gitSha: nonEmpty(env.SVC_GIT_SHA),
      buildId: nonEmpty(env.SVC_BUILD_ID),
      buildTime: nonEmpty(env.SVC_BUILD_TIME),
      root: process.cwd(),
    },
    webhookTestEgress: egress,
    slackWebhookHosts: slackHostsOf(nonEmpty(env.SVC_SLACK_WEBHOOK_HOSTS)),
    checkpointIntervalS,
    shutdownTimeoutMs,
    metricsToken: nonEmpty(env.SVC_METRICS_TOKEN),
    metricsPort: metricsPort === undefined ? undefined : portOf('SVC_METRICS_PORT', metricsPort),
  };
}
