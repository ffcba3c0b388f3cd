import { aggregateStream, type Folded, type Reader } from '../../../eventstore/index.js';
import { webhookDecider, type WebhookState } from './endpoint.js';
import { webhookStreamId } from './events.js';

/**
 * Loading a workspace's webhook stream (appends go through the event store's decider module, with
 * webhookDecider). Every append writes the inline projections in the same unit of work, so the
 * endpoint view is read back at once.
 */

export const loadWebhook = (db: Reader, workspaceId: string): Promise<Folded<WebhookState>> => aggregateStream(db, webhookDecider, webhookStreamId(workspaceId));
