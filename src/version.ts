import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import packageJson from '../package.json' with { type: 'json' };
import type { BuildSources } from './config.js';

/** The service's version, as package.json names it. */
export const SERVICE_VERSION: string = packageJson.version;

export interface VersionResponse {
  git_sha: string | null;
  build_id: string | null;
  build_time: string | null;
  node_version: string;
}

/** The build identity as configured, before the per-request rules of /version are applied. */
export interface BuildIdentity {
  gitSha: string | undefined;
  buildId: string | undefined;
  buildTime: string | undefined;
}

function readTrimmed(path: string): string | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

/** Variables win, then the files written into the image, then (development only) the fallback. */
export function resolveBuildIdentity(sources: BuildSources): BuildIdentity {
  return {
    gitSha: sources.gitSha ?? sources.fallback?.gitSha,
    buildId: sources.buildId ?? readTrimmed(join(sources.root, 'BUILD_ID')) ?? sources.fallback?.buildId,
    buildTime: sources.buildTime ?? readTrimmed(join(sources.root, 'BUILD_TIME')) ?? sources.fallback?.buildTime,
  };
}

const GIT_SHA = /^[0-9a-f]{40}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const FUTURE_TOLERANCE_MS = 5_000;

/** An ISO 8601 UTC instant that names a real calendar time, normalized; otherwise null. */
function utcInstant(text: string | undefined): Date | null {
  if (text === undefined || !ISO_UTC.test(text)) return null;
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) return null;
  // Date rolls 2026-02-30 over to March; a rolled-over date is not the date that was written.
  return at.toISOString().slice(0, 19) === text.slice(0, 19) ? at : null;
}

/** The /version body at `now`: each value valid or null, build_time null while in the future. */
export function versionAt(identity: BuildIdentity, now: Date): VersionResponse {
  const buildTime = utcInstant(identity.buildTime);
  return {
    git_sha: identity.gitSha !== undefined && GIT_SHA.test(identity.gitSha) ? identity.gitSha : null,
    build_id: identity.buildId ?? null,
    build_time: buildTime && buildTime.getTime() - now.getTime() <= FUTURE_TOLERANCE_MS ? buildTime.toISOString() : null,
    node_version: process.version,
  };
}
