import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Config } from '../../src/config.js';
import { resolveBuildIdentity, versionAt } from '../../src/ops/version.js';
import { withTestApp } from '../support/app.js';
import { useTestDatabase } from '../support/lifecycle.js';

/**
 * No container engine runs here, so the deployment files are checked for what can be checked
 * without one: their structure, and every command in them run for real on this machine.
 */

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);
const text = (file: string) => readFile(new URL(file, root), 'utf8');

interface Service {
  image?: string;
  build?: { context: string };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
}

let compose: { services: Record<string, Service> };
let dockerfile: string;
const db = useTestDatabase();
beforeAll(async () => {
  compose = parse(await text('docker-compose.yml'));
  dockerfile = await text('Dockerfile');
});

describe('docker-compose.yml', () => {
  it('runs PostgreSQL 16 with a healthcheck', () => {
    const postgres = compose.services.postgres!;
    expect(postgres.image).toBe('postgres:16');
    expect(postgres.healthcheck?.test.join(' ')).toContain('pg_isready');
  });

  it('starts the service in production once PostgreSQL is healthy, its secrets passed as variables', async () => {
    const svc = compose.services.svc!;
    expect(svc.build?.context).toBe('.');
    expect(svc.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    const env = svc.environment!;
    expect(env.NODE_ENV).toBe('production');
    expect(env.DATABASE_URL).toMatch(/^postgres:\/\/svc:\$\{POSTGRES_PASSWORD\}@postgres:5432\/svc$/);
    for (const secret of ['SVC_OWNER_KEY', 'SVC_RECEIPT_KEYS', 'SVC_DATA_KEY']) expect(env[secret]).toMatch(/^\$\{[A-Z_]+:?-?\}$/);

    // Every variable it sets is one the service reads (a misspelt one would be silently ignored).
    const config = await text('src/config.ts');
    for (const name of Object.keys(env)) expect(config, name).toContain(`env.${name}`);
  });

  it('checks health on /health/ready with a command that works on node:20-slim', async () => {
    const [kind, command, flag, script] = compose.services.svc!.healthcheck!.test;
    expect([kind, command, flag]).toEqual(['CMD', 'node', '-e']);
    expect(script).toContain("'http://127.0.0.1:8080/health/ready'");

    const probe = (config: Partial<Config>) =>
      withTestApp(db, { config: { ...config, port: 0 }, listen: true }, async (t) => {
        const port = (t.app.server.address() as { port: number }).port;
        try {
          await run(process.execPath, ['-e', script!.replace(':8080/', `:${port}/`)]);
          return 'healthy';
        } catch {
          return 'unhealthy';
        }
      });
    expect(await probe({})).toBe('healthy');
    expect(await probe({ ownerKey: undefined })).toBe('unhealthy');
  });
});

describe('Dockerfile', () => {
  it('builds on node:20-slim with npm ci', () => {
    expect(dockerfile).toMatch(/^FROM node:20-slim$/m);
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
  });

  it('writes BUILD_ID and BUILD_TIME files that /version accepts', async () => {
    const step = dockerfile.match(/^RUN (printf(?:[^\n]*\\\n)*[^\n]*)/m)?.[1];
    expect(step).toContain('> BUILD_ID');
    expect(step).toContain('> BUILD_TIME');
    const dir = await mkdtemp(join(tmpdir(), 'svc-image-'));
    try {
      await run('sh', ['-c', step!.replaceAll('\\\n', ' ')], { cwd: dir, env: { PATH: process.env.PATH } });
      const identity = resolveBuildIdentity({ gitSha: 'f'.repeat(40), buildId: undefined, buildTime: undefined, root: dir });
      const version = versionAt(identity, new Date(Date.now() + 60_000));
      expect(version.build_id).toMatch(/\S/);
      expect(version.build_time).not.toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('migrates, then serves, with commands the CLI has', async () => {
    const cmd = dockerfile.match(/^CMD (.*)$/m)?.[1];
    expect(cmd).toBeDefined();
    const script = (JSON.parse(cmd!) as string[]).at(-1)!;
    expect(script).toMatch(/src\/main\.ts migrate && exec node .*src\/main\.ts serve$/);
    const main = await text('src/main.ts');
    expect(main).toMatch(/^ {2}migrate {2,}/m);
    expect(main).toMatch(/^ {2}serve \(default\)/m);
  });
});
