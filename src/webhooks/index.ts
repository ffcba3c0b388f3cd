import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { DELIVERY_GAUGES, DeliveryDispatcher, deliverAcceptedAnswer, deliverExpiredLink, deliverResolvedDecision, deliveriesProjection } from './deliveries/index.js';
import { egressResource } from './egress.js';
import { webhookEndpointsProjection } from './endpoints/index.js';
import { WEBHOOK_REFUSALS } from './refusals.js';
import { webhookRoutes } from './routes.js';
import { webhookContract } from './schemas.js';

/**
 * Webhooks: a workspace's endpoint and signing secrets (endpoints/), and the deliveries of accepted
 * answers and, to an endpoint that asked, of links' lapses to it (deliveries/: queued in the unit
 * of work that appends the Session's event by the reactions this record declares, sent by the
 * dispatcher role).
 * Beside them: what both use (the egress, a request's attempt, the retry policy, the SQL) and the
 * owner's routes and commands over both. docs/webhooks.md.
 */
export { resealSecrets } from './commands.js';
export { DELIVERY_QUEUED, deliveryQueue, endSessionDeliveries, type DeliveryQueue } from './deliveries/index.js';
export { countSecretsSealedByInitial, secretsSealedByInitial } from './endpoints/index.js';
export { DeliveryDispatcher } from './deliveries/index.js';
export { openSecrets, storedSecrets, webhookEndpointsProjection } from './endpoints/index.js';
export { DELIVERIES_CHANNEL } from './sql.js';
/** The rules a URL the service posts to keeps, and the egress policy they are judged under (a workspace's Slack webhook keeps them too). */
export { checkWebhookUrl, MAX_URL_LENGTH, type UrlRefusal } from './url.js';
export { createEgress, policyOf } from './egress.js';

export const webhooks: Capability = {
  name: 'webhooks',
  routes: webhookRoutes,
  // Its tables: endpoints, signing secrets and delivery jobs.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  inlineProjections: () => [webhookEndpointsProjection, deliveriesProjection],
  refusals: WEBHOOK_REFUSALS,
  contract: webhookContract,
  gauges: DELIVERY_GAUGES,
  workers: [{ role: 'dispatcher', summary: 'delivers accepted answers (and lapses asked for) to webhook endpoints', start: (ctx) => new DeliveryDispatcher(ctx) }],
  // An accepted answer's delivery is queued as it is accepted, to the endpoint read with it; a
  // link's lapse as it is recorded, and a decision's resolution as it resolves, to an endpoint that asked for them.
  reactions: { answerAccepted: deliverAcceptedAnswer, sessionExpired: deliverExpiredLink, decisionResolved: deliverResolvedDecision },
  // Its egress, shared by the verification challenge and the dispatcher.
  resources: egressResource,
};
