import { fileURLToPath } from 'node:url';
export type { Projection } from '../eventstore/index.js';
export {
  AsyncProjector,
  RebuildInProgress,
  catchUpAll,
  catchUpOnce,
  rebuild,
  rebuildAll,
  type RebuildOptions,
  type RebuildProgress,
  type RebuildResult,
} from './runner.js';

/** The runner's own table: each async projection's checkpoint. */
export const PROJECTIONS_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
