import { fileURLToPath } from 'node:url';

/** Quotas on what developer workspaces do: how many uses of each kind a rolling window admits. */
export { spendQuota } from './commands.js';
export type { QuotaRefusal } from './decide.js';
export { QUOTAS, type QuotaName } from './limits.js';
export { quotaUsesProjection } from './projection.js';
/** The quotas capability's table: every use under quota. */
export const QUOTAS_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
