import { unopenedEvent, type Projection, type RecordedEvent, type UnitOfWork } from '../../../eventstore/index.js';
import {
  DEFAULT_EVENTS,
  ENDPOINT_REGISTERED,
  ENDPOINT_SUBSCRIBED,
  ENDPOINT_VERIFIED,
  SECRET_CREATED,
  SECRET_RESEALED,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
} from './events.js';
import { webhookStreams } from './upcast.js';
import * as sql from '../sql.js';

/**
 * Each workspace's endpoints and signing secrets, folded from the webhook streams. A secret's
 * column keeps the sealed value its event is stored with, never opened here: a delivery opens it
 * when it signs (openSecrets), so the view holds no more in the clear than the log does.
 */
export const webhookEndpointsProjection: Projection = {
  name: 'webhook_endpoints',
  tables: ['webhook_endpoints', 'webhook_secrets'],
  eventTypes: WEBHOOK_EVENT_TYPES,
  async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
    for (const recorded of events) {
      const { event, sealed } = unopenedEvent<WebhookEvent>(webhookStreams, recorded);
      await applyOne(uow, event, sealed);
    }
  },
};

async function applyOne(uow: UnitOfWork, event: WebhookEvent, sealed: string | undefined): Promise<void> {
  switch (event.type) {
    case ENDPOINT_REGISTERED:
      await uow.query(sql.ENDPOINT_MARK_REPLACED, [event.workspace_id, event.at]);
      await uow.query(sql.ENDPOINT_INSERT, [event.endpoint_id, event.workspace_id, event.url, event.at, event.events ?? DEFAULT_EVENTS]);
      return;
    case ENDPOINT_SUBSCRIBED:
      await uow.query(sql.ENDPOINT_SUBSCRIBED, [event.endpoint_id, event.events]);
      return;
    case ENDPOINT_VERIFIED:
      await uow.query(sql.ENDPOINT_VERIFIED, [event.endpoint_id, event.at, event.expires_at]);
      return;
    case SECRET_CREATED:
      if (event.retires) await uow.query(sql.SECRET_RETIRE, [event.retires.kid, event.retires.retire_at]);
      await uow.query(sql.SECRET_INSERT, [event.kid, event.workspace_id, sealed ?? event.sealed_by_initial, sealed ? 'stream' : 'initial', event.at]);
      return;
    case SECRET_RESEALED:
      await uow.query(sql.SECRET_RESEAL, [event.kid, sealed]);
      return;
  }
}
