import { ACCOUNTS_MIGRATIONS } from './accounts/index.js';
import { EVENTSTORE_MIGRATIONS } from '../eventstore/index.js';
import { FEED_MIGRATIONS } from './feed/index.js';
import { AUDIT_MIGRATIONS } from './audit/migrations.js';
import { PROJECTIONS_MIGRATIONS } from '../projections/index.js';
import { PURGE_MIGRATIONS } from './purge/index.js';
import { QUOTAS_MIGRATIONS } from './quotas/index.js';
import { SESSIONS_MIGRATIONS } from './sessions/index.js';
import { TRIALS_MIGRATIONS } from './trials/index.js';
import { WEBHOOKS_MIGRATIONS } from './webhooks/migrations.js';

/** Every folder of bundled SQL migrations; each owner keeps its tables' files beside its code. */
export const MIGRATION_FOLDERS: readonly string[] = [
  EVENTSTORE_MIGRATIONS,
  PROJECTIONS_MIGRATIONS,
  SESSIONS_MIGRATIONS,
  WEBHOOKS_MIGRATIONS,
  TRIALS_MIGRATIONS,
  AUDIT_MIGRATIONS,
  PURGE_MIGRATIONS,
  ACCOUNTS_MIGRATIONS,
  QUOTAS_MIGRATIONS,
  FEED_MIGRATIONS,
];
