import { fileURLToPath } from 'node:url';
export type { Projection } from '../eventstore/index.js';
export { AsyncProjector, catchUp, catchUpAll, catchUpOnce } from './runner.js';
export {
  RebuildInProgress,
  rebuild,
  rebuildAll,
  replayPart,
  type PartReplayer,
  type RebuildPass,
  type StreamPart,
} from './rebuild.js';

/** The runner's own table: each async projection's checkpoint. */
export const PROJECTIONS_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
