import type { Projection } from '../../eventstore/index.js';

/**
 * What the operator's checks must know of the whole service: which migrations it bundles and
 * which read models follow the log. Derived from the capabilities list (src/capabilities.ts),
 * which names ops among the others, so ops is handed them instead of importing the list.
 */
export interface ServiceParts {
  migrationFolders: readonly string[];
  asyncProjections: readonly Projection[];
  /** Every projection's name, the inline ones first: what `rebuild` can replay. */
  projectionNames: readonly string[];
}
