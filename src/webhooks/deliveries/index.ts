/**
 * The deliveries of accepted answers to a workspace's endpoint, one stream per job: queued in the
 * accepting unit of work (queue.ts), sent and retried by the dispatcher role under a lease, folded
 * by deliveryDecider into the job rows (projection.ts). A job reads its endpoint, never writes it.
 */
export { DELIVERY_QUEUED } from './events.js';
export { DeliveryDispatcher } from './dispatcher.js';
export { deliveriesProjection } from './projection.js';
export { deliverAcceptedAnswer, deliverExpiredLink } from './reaction.js';
export { endPendingDeliveries, endSessionDeliveries, mayReceive, queueDelivery, redeliver, type AcceptedDelivery } from './queue.js';
export { deliveryItem, type DeliveryRow } from './views.js';
