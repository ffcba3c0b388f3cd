import { aggregateStream, foldRecorded, type Folded, type Reader, type RecordedEvent } from '../../../eventstore/index.js';
import { deliveryDecider, type DeliveryState } from './delivery.js';
import { deliveryStreamId } from './events.js';

/**
 * Loading a delivery job's stream (appends go through the event store's decider module, with
 * deliveryDecider). Every append writes the inline projection in the same unit of work, so the job
 * rows are read back at once.
 */

/** A job folded from its recorded events; undefined when there are none. */
export const foldDelivery = (recorded: readonly RecordedEvent[]): DeliveryState | undefined => foldRecorded(deliveryDecider, recorded).state;

/** The job (undefined when there is no such job) and its version. Inside a unit of work its stream is read once. */
export const loadDelivery = (db: Reader, deliveryId: string): Promise<Folded<DeliveryState | undefined>> => aggregateStream(db, deliveryDecider, deliveryStreamId(deliveryId));
