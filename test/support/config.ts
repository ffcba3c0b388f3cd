import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Config } from '../../src/config.js';

export function receiptKeySet(kids: string[]): string {
  return JSON.stringify({
    keys: kids.map((kid) => ({ ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }), kid })),
  });
}

/**
 * The deployment data key of every configuration of a test process, as one deployment has one:
 * apps started over the same database open each other's stream keys and share one digest key.
 */
export const TEST_DATA_KEYS = `initial:${randomBytes(32).toString('base64url')}`;

/** A complete, ready configuration; each test overrides what it is about. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    production: false,
    databaseUrl: undefined,
    listenDatabaseUrl: undefined,
    databasePooling: 'none',
    dataDir: '/nonexistent',
    host: '127.0.0.1',
    port: 0,
    publicOrigin: 'http://127.0.0.1:8080',
    ownerKey: `svc_owner_${randomBytes(32).toString('base64url')}`,
    receiptKeys: receiptKeySet(['test-1']),
    dataKeys: TEST_DATA_KEYS,
    smtpUrl: undefined,
    mailFrom: undefined,
    trial: true,
    trustProxy: 0,
    build: {
      gitSha: 'a'.repeat(40),
      buildId: 'test-build',
      buildTime: '2026-01-01T00:00:00Z',
      root: '/nonexistent',
    },
    webhookTestEgress: undefined,
    slackWebhookHosts: ['hooks.slack.com'],
    checkpointIntervalS: 300,
    shutdownTimeoutMs: 10_000,
    metricsToken: `svc_metrics_${randomBytes(24).toString('base64url')}`,
    metricsPort: undefined,
    ...overrides,
  };
}
