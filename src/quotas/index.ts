import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { quotaUsesProjection } from './projection.js';
import { QUOTA_REFUSALS } from './refusals.js';

/** Quotas on what developer workspaces do: how many uses of each kind a rolling window admits. */
export { isMetered, spendQuota, type QuotaSpend } from './commands.js';
export type { QuotaRefusal } from './decide.js';
export { QUOTAS, type QuotaName, type QuotaUse } from './limits.js';
export { QUOTA_REFUSALS } from './refusals.js';

export const quotas: Capability = {
  name: 'quotas',
  // Its table: every use under quota.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  inlineProjections: () => [quotaUsesProjection],
  refusals: QUOTA_REFUSALS,
};
