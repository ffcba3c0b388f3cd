import { append, readStream, transactionMemo, type JsonObject, type NewEvent, type RecordedEvent, type Tx } from '../../eventstore/index.js';
import type pg from 'pg';
import { applyAll } from '../../projections/index.js';
import type { ServiceContext } from '../context.js';
import { inlineProjections } from '../projections.js';
import { evolve as evolveDelivery, type DeliveryState } from './delivery.js';
import { deliveryStreamId, type DeliveryEvent } from './deliveryEvents.js';
import { EMPTY_WEBHOOK, evolve as evolveWebhook, type WebhookState } from './endpoint.js';
import { webhookStreamId, type WebhookEvent } from './endpointEvents.js';

/**
 * Loading and saving the webhook and delivery streams. Every append writes the inline projections
 * in the same transaction, so the endpoint view and the job rows are read back at once.
 */

type Db = Tx | pg.Pool;

/** A recorded event as its domain type: the type beside its data. */
export const asEvent = <E>(recorded: RecordedEvent): E => ({ type: recorded.type, ...recorded.data }) as E;

const toNew = (event: WebhookEvent | DeliveryEvent, metadata?: JsonObject): NewEvent => {
  const { type, ...data } = event;
  return { type, data: data as JsonObject, ...(metadata ? { metadata } : {}) };
};

export async function loadWebhook(db: Db, workspaceId: string): Promise<WebhookState> {
  const recorded = await readStream(db, webhookStreamId(workspaceId));
  return recorded.reduce((state, r) => evolveWebhook(state, asEvent<WebhookEvent>(r), r.streamVersion), EMPTY_WEBHOOK);
}

const jobMemoKey = (deliveryId: string): string => `delivery-events:${deliveryId}`;

/**
 * The job as of `uptoVersion` (its whole stream when omitted); undefined when there is no such job.
 * Within a transaction the stream is read once: every writer holds the job's row lock, so the
 * command, its append and the job-row projection after it share what was read and written.
 */
export async function loadDelivery(db: Db, deliveryId: string, uptoVersion = Infinity): Promise<DeliveryState | undefined> {
  const memo = transactionMemo(db);
  let recorded = memo?.get(jobMemoKey(deliveryId)) as RecordedEvent[] | undefined;
  if (!recorded) {
    recorded = await readStream(db, deliveryStreamId(deliveryId));
    memo?.set(jobMemoKey(deliveryId), recorded);
  }
  return recorded
    .filter((r) => r.streamVersion <= uptoVersion)
    .reduce<DeliveryState | undefined>((state, r) => evolveDelivery(state, asEvent<DeliveryEvent>(r), r.streamVersion), undefined);
}

export async function appendWebhookEvents(tx: Tx, ctx: ServiceContext, workspaceId: string, state: WebhookState, events: WebhookEvent[]): Promise<void> {
  const recorded = await append(tx, webhookStreamId(workspaceId), state.version, events.map((e) => toNew(e)));
  await applyAll(inlineProjections(ctx), tx, recorded);
}

/** `state` undefined: the job's first event. `metadata` says who acted (a dispatcher's id). */
export async function appendDeliveryEvents(
  tx: Tx,
  ctx: ServiceContext,
  deliveryId: string,
  state: DeliveryState | undefined,
  events: DeliveryEvent[],
  metadata?: JsonObject,
): Promise<void> {
  const version = state?.version ?? 0;
  const recorded = await append(tx, deliveryStreamId(deliveryId), version, events.map((e) => toNew(e, metadata)));
  // The appended events join what this transaction read, before the projection folds them.
  const memo = transactionMemo(tx);
  const known = version === 0 ? [] : (memo?.get(jobMemoKey(deliveryId)) as RecordedEvent[] | undefined);
  if (known?.length === version) memo?.set(jobMemoKey(deliveryId), [...known, ...recorded]);
  await applyAll(inlineProjections(ctx), tx, recorded);
}
