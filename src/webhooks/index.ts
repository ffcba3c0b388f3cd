import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { deliveriesProjection } from './deliveryProjection.js';
import { DeliveryDispatcher } from './dispatcher.js';
import { webhookEndpointsProjection } from './endpointProjection.js';
import { WEBHOOK_REFUSALS } from './refusals.js';
import { webhookRoutes } from './routes.js';

/**
 * Webhooks: a workspace's endpoint and signing secrets, and the deliveries of accepted answers to
 * it (queued in the accepting unit of work, sent by the dispatcher role). docs/webhooks.md.
 */
export { resealSecrets } from './commands.js';
export { DELIVERY_QUEUED } from './deliveryEvents.js';
export { createEgress, policyOf } from './egress.js';
export type { Endpoint } from './endpoint.js';
export { endSessionDeliveries, mayReceive, queueDelivery } from './queue.js';
export { countSecretsSealedByInitial, secretsSealedByInitial } from './reads.js';
export { endpointOfRow } from './views.js';

export const webhooks: Capability = {
  name: 'webhooks',
  routes: webhookRoutes,
  // Its tables: endpoints, signing secrets and delivery jobs.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  inlineProjections: () => [webhookEndpointsProjection, deliveriesProjection],
  refusals: WEBHOOK_REFUSALS,
  workers: { dispatcher: (ctx) => new DeliveryDispatcher(ctx) },
};
