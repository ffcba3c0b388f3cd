import type { Projection, StreamKeys } from '../eventstore/index.js';
import { accountsProjection } from './accounts/projection.js';
import { sessionFeedProjection } from './feed/projection.js';
import { purgeScheduleProjection } from './purge/projection.js';
import { quotaUsesProjection } from './quotas/index.js';
import { sessionViewProjection } from './sessions/projection.js';
import { trialsProjection } from './trials/projection.js';
import { deliveriesProjection } from './webhooks/deliveryProjection.js';
import { webhookEndpointsProjection } from './webhooks/endpointProjection.js';

/**
 * The read models of the service, registered with the event store at start (src/context.ts).
 * Inline ones are written in the appending unit of work, in this order, because a caller reads
 * them back at once; async ones follow the log from a checkpoint.
 */
export function inlineProjections(deps: { streamKeys: StreamKeys }): Projection[] {
  return [sessionViewProjection(deps.streamKeys), sessionFeedProjection, webhookEndpointsProjection, deliveriesProjection, trialsProjection, accountsProjection(deps.streamKeys), quotaUsesProjection];
}

export function asyncProjections(): Projection[] {
  return [purgeScheduleProjection];
}
