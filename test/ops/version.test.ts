import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadConfig, type BuildSources } from '../../src/config.js';
import { resolveBuildIdentity, versionAt } from '../../src/version.js';
import { withTestApp } from '../support/app.js';
import { useTestDatabase } from '../support/lifecycle.js';

const SHA = '0123456789abcdef0123456789abcdef01234567';
const BUILT = '2026-03-01T12:00:00.000Z';
const now = new Date(BUILT);

const db = useTestDatabase();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-build-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const identity = (overrides: Partial<ReturnType<typeof resolveBuildIdentity>>) => ({
  gitSha: SHA,
  buildId: 'build-7',
  buildTime: BUILT,
  ...overrides,
});

describe('VersionResponse rules', () => {
  it('shows git_sha only as exactly 40 lower-case hex characters', () => {
    expect(versionAt(identity({}), now).git_sha).toBe(SHA);
    for (const gitSha of [undefined, SHA.toUpperCase(), SHA.slice(1), `${SHA}0`, ` ${SHA}`, `${SHA.slice(1)}g`, 'HEAD']) {
      expect(versionAt(identity({ gitSha }), now).git_sha, String(gitSha)).toBeNull();
    }
  });

  it('shows build_id as given, null when absent', () => {
    expect(versionAt(identity({}), now).build_id).toBe('build-7');
    expect(versionAt(identity({ buildId: undefined }), now).build_id).toBeNull();
  });

  it('shows build_time only as a real UTC instant', () => {
    expect(versionAt(identity({ buildTime: '2026-03-01T12:00:00Z' }), now).build_time).toBe(BUILT);
    for (const buildTime of [undefined, 'yesterday', '2026-02-30T00:00:00Z', '2026-03-01T13:00:00+01:00', '2026-03-01 12:00:00Z', '1772366400']) {
      expect(versionAt(identity({ buildTime }), now).build_time, String(buildTime)).toBeNull();
    }
  });

  it('shows build_time null while it is more than 5 s in the future, per request', async () => {
    const clock = new ManualClock('2026-03-01T11:59:54.000Z');
    await withTestApp(db, { clock, config: { build: { gitSha: SHA, buildId: 'b', buildTime: BUILT, root: dir } } }, async (t) => {
      const buildTime = async () => (await t.app.inject({ url: '/version' })).json().build_time;
      expect(await buildTime()).toBeNull(); // 6 s ahead
      clock.advance(999);
      expect(await buildTime()).toBeNull(); // 5.001 s ahead
      clock.advance(1);
      expect(await buildTime()).toBe(BUILT); // exactly 5 s ahead
      clock.advance(60_000);
      expect(await buildTime()).toBe(BUILT);
    });
  });

  it('always gives the running node version', () => {
    expect(versionAt(identity({}), now).node_version).toBe(process.version);
    expect(versionAt({ gitSha: undefined, buildId: undefined, buildTime: undefined }, now)).toEqual({
      git_sha: null,
      build_id: null,
      build_time: null,
      node_version: process.version,
    });
  });
});

describe('build identity sources', () => {
  const sources = (overrides: Partial<BuildSources>): BuildSources => ({
    gitSha: undefined,
    buildId: undefined,
    buildTime: undefined,
    root: dir,
    ...overrides,
  });

  it('reads the SVC_ variables', () => {
    const config = loadConfig({ SVC_GIT_SHA: SHA, SVC_BUILD_ID: 'from-env', SVC_BUILD_TIME: BUILT });
    expect(config.build).toMatchObject({ gitSha: SHA, buildId: 'from-env', buildTime: BUILT });
  });

  it('reads BUILD_ID and BUILD_TIME files when the variables are unset, and the variables win', async () => {
    await writeFile(join(dir, 'BUILD_ID'), 'image-42\n');
    await writeFile(join(dir, 'BUILD_TIME'), `${BUILT}\n`);
    expect(resolveBuildIdentity(sources({ gitSha: SHA }))).toEqual({ gitSha: SHA, buildId: 'image-42', buildTime: BUILT });
    expect(resolveBuildIdentity(sources({ buildId: 'env-id', buildTime: '2026-01-01T00:00:00Z' }))).toMatchObject({
      buildId: 'env-id',
      buildTime: '2026-01-01T00:00:00Z',
    });
  });

  it('leaves each part unset when neither gives it (no fallback outside development)', () => {
    expect(resolveBuildIdentity(sources({ root: join(dir, 'nowhere') }))).toEqual({
      gitSha: undefined,
      buildId: undefined,
      buildTime: undefined,
    });
  });
});

describe('GET /version', () => {
  it('answers 200 with no-store even when the service is not ready', async () => {
    await writeFile(join(dir, 'BUILD_ID'), 'image-43\n');
    await writeFile(join(dir, 'BUILD_TIME'), `${BUILT}\n`);
    const options = {
      clock: new ManualClock('2026-03-02T00:00:00.000Z'),
      config: { ownerKey: undefined, build: { gitSha: 'not-a-sha', buildId: undefined, buildTime: undefined, root: dir } },
    };
    await withTestApp(db, options, async (t) => {
      expect((await t.app.inject({ url: '/health/ready' })).statusCode).toBe(503);
      const res = await t.app.inject({ url: '/version' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store, no-transform');
      expect(res.json()).toEqual({ git_sha: null, build_id: 'image-43', build_time: BUILT, node_version: process.version });
    });
  });
});
