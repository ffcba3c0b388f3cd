import { aggregateStream, foldRecorded, type Folded, type Reader, type RecordedEvent } from '../../eventstore/index.js';
import { deliveryDecider, type DeliveryState } from './delivery.js';
import { deliveryStreamId } from './deliveryEvents.js';
import { webhookDecider, type WebhookState } from './endpoint.js';
import { webhookStreamId } from './endpointEvents.js';

/**
 * Loading the webhook and delivery streams (appends go through the event store's decider module,
 * with webhookDecider and deliveryDecider). Every append writes the inline projections in the same
 * unit of work, so the endpoint view and the job rows are read back at once.
 */

export const loadWebhook = (db: Reader, workspaceId: string): Promise<Folded<WebhookState>> => aggregateStream(db, webhookDecider, webhookStreamId(workspaceId));

/** A job folded from its recorded events; undefined when there are none. */
export const foldDelivery = (recorded: readonly RecordedEvent[]): DeliveryState | undefined => foldRecorded(deliveryDecider, recorded).state;

/** The job (undefined when there is no such job) and its version. Inside a unit of work its stream is read once. */
export const loadDelivery = (db: Reader, deliveryId: string): Promise<Folded<DeliveryState | undefined>> => aggregateStream(db, deliveryDecider, deliveryStreamId(deliveryId));
