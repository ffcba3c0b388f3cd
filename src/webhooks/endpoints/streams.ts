import { aggregateStream, type Folded, type Reader, type StreamKeys } from '../../../eventstore/index.js';
import { webhookDecider, type WebhookState } from './endpoint.js';
import { webhookStreamId } from './events.js';

/**
 * Loading a workspace's webhook stream (appends go through the event store's decider module, with
 * webhookDecider). Every append writes the inline projections in the same unit of work, so the
 * endpoint view is read back at once. The fold opens the stream's secrets with its key.
 */

export const loadWebhook = ({ streamKeys }: { streamKeys: StreamKeys }, db: Reader, workspaceId: string): Promise<Folded<WebhookState>> =>
  aggregateStream(db, webhookDecider, webhookStreamId(workspaceId), { keys: streamKeys });
