import type { Projection } from '../projections/index.js';
import type { ServiceContext } from './context.js';
import { sessionViewProjection } from './sessions/projection.js';
import { deliveriesProjection } from './webhooks/deliveryProjection.js';
import { webhookEndpointsProjection } from './webhooks/endpointProjection.js';

/**
 * The read models of the service. Inline ones are written in the append's transaction (a caller
 * reads them back at once); async ones follow the log from a checkpoint.
 */
export function inlineProjections(ctx: ServiceContext): Projection[] {
  return [sessionViewProjection(ctx), webhookEndpointsProjection, deliveriesProjection];
}

export function asyncProjections(_ctx: ServiceContext): Projection[] {
  return [];
}
