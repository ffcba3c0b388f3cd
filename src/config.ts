import { resolve } from 'node:path';

/**
 * Everything the service reads from its environment, read once. Explicit variables always win;
 * the development defaults (secrets, build identity) are filled in by devDefaults.ts, never here.
 */
export interface Config {
  production: boolean;
  /** Unset: the embedded PostgreSQL under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  host: string;
  port: number;
  publicOrigin: string;
  ownerKey: string | undefined;
  /** Raw JWK Set JSON; parsed and checked by receipts/keys.ts. */
  receiptKeys: string | undefined;
  /** Raw base64url; parsed and checked by eventstore/keys.ts. */
  dataKey: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string | undefined;
  trial: boolean;
  build: BuildSources;
  /** `loopback` lets webhook deliveries reach https on 127.0.0.1 (tests only). */
  webhookTestEgress: 'loopback' | undefined;
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

export function loadConfig(env: Env = process.env): Config {
  const host = nonEmpty(env.HOST) ?? '127.0.0.1';
  const port = Number(nonEmpty(env.PORT) ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${env.PORT}`);
  const trial = nonEmpty(env.SVC_TRIAL) ?? 'on';
  if (trial !== 'on' && trial !== 'off') throw new Error(`SVC_TRIAL must be on or off, got ${trial}`);
  const egress = nonEmpty(env.SVC_WEBHOOK_TEST_EGRESS);
  if (egress !== undefined && egress !== 'loopback') throw new Error(`SVC_WEBHOOK_TEST_EGRESS may only be loopback`);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    production: env.NODE_ENV === 'production',
    databaseUrl: nonEmpty(env.DATABASE_URL),
    dataDir: resolve(nonEmpty(env.SVC_DATA_DIR) ?? './.data'),
    host,
    port,
    publicOrigin: (nonEmpty(env.SVC_PUBLIC_ORIGIN) ?? `http://${urlHost}:${port}`).replace(/\/+$/, ''),
    ownerKey: nonEmpty(env.SVC_OWNER_KEY),
    receiptKeys: nonEmpty(env.SVC_RECEIPT_KEYS),
    dataKey: nonEmpty(env.SVC_DATA_KEY),
    smtpUrl: nonEmpty(env.SVC_SMTP_URL),
    mailFrom: nonEmpty(env.SVC_MAIL_FROM),
    trial: trial === 'on',
    build: {
      gitSha: nonEmpty(env.SVC_GIT_SHA),
      buildId: nonEmpty(env.SVC_BUILD_ID),
      buildTime: nonEmpty(env.SVC_BUILD_TIME),
      root: process.cwd(),
    },
    webhookTestEgress: egress,
  };
}
