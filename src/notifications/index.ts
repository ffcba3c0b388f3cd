import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { Notifier } from './notifier.js';
import { notificationJobsProjection } from './projection.js';

/**
 * Reaching the people who decide (docs/responders.md): the jobs a Session's notification plan
 * owes, and the notifier role that sends them. The plan, the responders and the messages'
 * outcomes are the Session's own events (src/sessions).
 */
export { Notifier, type NotifierOptions } from './notifier.js';
export { MAX_ATTEMPTS } from './retry.js';

export const notifications: Capability = {
  name: 'notifications',
  // Its table: the jobs.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  inlineProjections: ({ streamKeys }) => [notificationJobsProjection(streamKeys)],
  workers: { notifier: (ctx) => new Notifier(ctx) },
};
