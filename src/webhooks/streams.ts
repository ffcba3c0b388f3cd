import { readStream, type JsonObject, type NewEvent, type Reader, type RecordedEvent, type UnitOfWork } from '../../eventstore/index.js';
import { evolve as evolveDelivery, type DeliveryState } from './delivery.js';
import { deliveryStreamId, type DeliveryEvent } from './deliveryEvents.js';
import { EMPTY_WEBHOOK, evolve as evolveWebhook, type WebhookState } from './endpoint.js';
import { webhookStreamId, type WebhookEvent } from './endpointEvents.js';

/**
 * Loading and saving the webhook and delivery streams. Every append writes the inline projections
 * in the same unit of work, so the endpoint view and the job rows are read back at once.
 */

/** A recorded event as its domain type: the type beside its data. */
export const asEvent = <E>(recorded: RecordedEvent): E => ({ type: recorded.type, ...recorded.data }) as E;

const toNew = (event: WebhookEvent | DeliveryEvent, metadata?: JsonObject): NewEvent => {
  const { type, ...data } = event;
  return { type, data: data as JsonObject, ...(metadata ? { metadata } : {}) };
};

export async function loadWebhook(db: Reader, workspaceId: string): Promise<WebhookState> {
  const recorded = await readStream(db, webhookStreamId(workspaceId));
  return recorded.reduce((state, r) => evolveWebhook(state, asEvent<WebhookEvent>(r), r.streamVersion), EMPTY_WEBHOOK);
}

/** A job folded from its recorded events; undefined when there are none. */
export const foldDelivery = (recorded: readonly RecordedEvent[]): DeliveryState | undefined =>
  recorded.reduce<DeliveryState | undefined>((state, r) => evolveDelivery(state, asEvent<DeliveryEvent>(r), r.streamVersion), undefined);

/** The job, or undefined when there is no such job. Inside a unit of work its stream is read once. */
export async function loadDelivery(db: Reader, deliveryId: string): Promise<DeliveryState | undefined> {
  return foldDelivery(await readStream(db, deliveryStreamId(deliveryId)));
}

export async function appendWebhookEvents(uow: UnitOfWork, workspaceId: string, state: WebhookState, events: WebhookEvent[]): Promise<void> {
  await uow.append(webhookStreamId(workspaceId), state.version, events.map((e) => toNew(e)));
}

/** `state` undefined: the job's first event. `metadata` says who acted (a dispatcher's id). */
export async function appendDeliveryEvents(
  uow: UnitOfWork,
  deliveryId: string,
  state: DeliveryState | undefined,
  events: DeliveryEvent[],
  metadata?: JsonObject,
): Promise<void> {
  await uow.append(deliveryStreamId(deliveryId), state?.version ?? 0, events.map((e) => toNew(e, metadata)));
}
