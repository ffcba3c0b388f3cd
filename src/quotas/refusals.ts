import { HOUR } from '../clock.js';
import type { RefusalTable } from '../http/refusal.js';
import type { QuotaRefusal } from './decide.js';
import { QUOTAS } from './limits.js';

/** A full quota of a developer workspace answers 429 and names itself in `reason`. */
export const QUOTA_REFUSALS: RefusalTable<QuotaRefusal> = {
  sessions_per_minute_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `This workspace has created ${QUOTAS.sessions_per_minute.limit} Sessions in the last minute, its quota; Retry-After says when one more is admitted.`,
    reason: 'sessions_per_minute',
  },
  sessions_per_day_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `This workspace has created ${QUOTAS.sessions_per_day.limit} Sessions in the last ${QUOTAS.sessions_per_day.windowMs / HOUR} hours, its quota; Retry-After says when one more is admitted.`,
    reason: 'sessions_per_day',
  },
  webhook_verifications_per_hour_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `This workspace has sent ${QUOTAS.webhook_verifications_per_hour.limit} webhook verifications in the last hour, its quota; Retry-After says when one more is admitted.`,
    reason: 'webhook_verifications_per_hour',
  },
  webhook_changes_per_day_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message:
      `This workspace has registered webhook URLs and rotated secrets ${QUOTAS.webhook_changes_per_day.limit} times in the last ` +
      `${QUOTAS.webhook_changes_per_day.windowMs / HOUR} hours, its quota for both together; Retry-After says when one more is admitted.`,
    reason: 'webhook_changes_per_day',
  },
};
