import { fileURLToPath } from 'node:url';
import type { BacklogGauge, Capability } from '../capability.js';
import { Notifier } from './notifier.js';
import { notificationJobsProjection } from './projection.js';
import * as sql from './sql.js';

/**
 * Reaching the people who decide (docs/responders.md): the jobs a Session's notification plan
 * owes, and the notifier role that sends them. The plan, the responders and the messages'
 * outcomes are the Session's own events (src/sessions).
 */
export { Notifier } from './notifier.js';
export { MAX_ATTEMPTS } from './retry.js';

export const notifications: Capability = {
  name: 'notifications',
  // Its table: the jobs.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  inlineProjections: ({ streamKeys }) => [notificationJobsProjection(streamKeys)],
  workers: [{ role: 'notifier', summary: "mails responders, reminders and escalations (Sessions' notify)", start: (ctx) => new Notifier(ctx) }],
  gauges: [
    {
      name: 'svc_notification_jobs_due',
      help: 'Notification messages due and not sent yet (retries waiting for their backoff are not due).',
      read: async (db, now) => [{ value: (await db.query<{ due: number }>(sql.DUE_COUNT, [now])).rows[0]!.due }],
    },
  ] satisfies BacklogGauge[],
};
