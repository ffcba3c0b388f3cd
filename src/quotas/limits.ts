import { DAY, HOUR } from '../clock.js';

const MINUTE = 60_000;

/**
 * The quotas of developer workspaces (the operator's owner key has none). Each is a rolling
 * window over one kind of use: a use counts from the moment it was admitted until `windowMs`
 * later. Each number appears here once; the log records every use with its time, so a change
 * applies at once to the uses already counted.
 */
export const QUOTAS = {
  /** Sessions created (POST /v1/sessions), per rolling minute and per rolling 24 hours. */
  sessions_per_minute: { counts: 'session', limit: 60, windowMs: MINUTE },
  sessions_per_day: { counts: 'session', limit: 5_000, windowMs: DAY },
  /** Challenges sent to the webhook endpoint (POST /v1/webhook/verify), whatever their outcome. */
  webhook_verifications_per_hour: { counts: 'webhook_verification', limit: 10, windowMs: HOUR },
  /**
   * Webhook registrations that change the endpoint (PUT /v1/webhook with a new URL) and secret
   * rotations, together: each writes to the workspace's webhook stream and mints or replaces what
   * signs its deliveries.
   */
  webhook_changes_per_day: { counts: 'webhook_change', limit: 20, windowMs: DAY },
  /**
   * Notification emails a plan may send (each address's message and its reminder), counted when the
   * Session (or revision) that makes the plan is created: a developer workspace mails at most this
   * many a day, and any one address at most the second figure, so nobody's inbox is flooded through
   * the service.
   */
  notification_emails_per_day: { counts: 'notification_email', limit: 500, windowMs: DAY },
  notification_emails_per_address_per_day: { counts: 'notification_email_to', limit: 20, windowMs: DAY },
} as const;

export type QuotaName = keyof typeof QUOTAS;
/** What a quota counts: each use of one kind counts toward every quota over that kind. */
export type QuotaUse = (typeof QUOTAS)[QuotaName]['counts'];

/** The quotas over one kind of use. */
export const quotasOf = (use: QuotaUse): QuotaName[] => (Object.keys(QUOTAS) as QuotaName[]).filter((name) => QUOTAS[name].counts === use);
