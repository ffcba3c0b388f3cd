import { fileURLToPath } from 'node:url';
import type { BacklogGauge, Capability } from '../capability.js';
import { Notifier } from './notifier.js';
import { notificationJobsProjection } from './projection.js';
import { NOTIFICATION_REFUSALS } from './refusals.js';
import { notificationRoutes } from './routes.js';
import { slackWebhooksProjection } from './slack/index.js';
import * as sql from './sql.js';

/**
 * Reaching the people who decide (docs/responders.md): the jobs a Session's notification plan
 * owes, the notifier role that sends them, and each workspace's Slack webhook (slack/). The plan, the responders and the messages'
 * outcomes are the Session's own events (src/sessions).
 */
export { Notifier } from './notifier.js';
export { MAX_ATTEMPTS } from './retry.js';

export const notifications: Capability = {
  name: 'notifications',
  routes: notificationRoutes,
  contract: { tag: { name: 'Notifications', description: "Reach the people who decide: the workspace's Slack webhook (responders by email and Slack are a Session's `notify`)." } },
  // Its tables: the jobs, and the workspaces' Slack webhooks.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  inlineProjections: ({ streamKeys }) => [notificationJobsProjection(streamKeys), slackWebhooksProjection],
  refusals: NOTIFICATION_REFUSALS,
  workers: [{ role: 'notifier', summary: "mails responders, reminders and escalations, and posts to Slack (Sessions' notify)", start: (ctx) => new Notifier(ctx) }],
  gauges: [
    {
      name: 'svc_notification_oldest_due_age_seconds',
      help: 'How long the oldest notification message due has waited to be sent; 0 when none is due.',
      read: async (db, now) => {
        const { rows } = await db.query<{ next_attempt_at: Date }>(sql.NEXT_DUE);
        return [{ value: rows[0] ? Math.max(0, Math.round((now.getTime() - rows[0].next_attempt_at.getTime()) / 1000)) : 0 }];
      },
    },
  ] satisfies BacklogGauge[],
};
