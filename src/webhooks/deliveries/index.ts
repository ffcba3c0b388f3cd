/**
 * The deliveries of accepted answers to a workspace's endpoint, one stream per job: queued in the
 * accepting unit of work (queue.ts), sent and retried by the dispatcher role under a lease, folded
 * by deliveryDecider into the job rows (projection.ts). A job reads its endpoint, never writes it.
 */
export { DELIVERY_GAUGES, deliveryQueue, type DeliveryQueue } from './backlog.js';
export { DELIVERY_QUEUED } from './events.js';
export { DeliveryDispatcher } from './dispatcher.js';
export { deliveriesProjection } from './projection.js';
export { deliverAcceptedAnswer, deliverExpiredLink, deliverResolvedDecision, endPendingDeliveries, endSessionDeliveries, redeliver, type AcceptedDelivery } from './queue.js';
export { deliveryItem, type DeliveryRow } from './views.js';
