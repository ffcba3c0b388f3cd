import { unopenedEvent, type Projection, type RecordedEvent, type UnitOfWork } from '../../../eventstore/index.js';
import { SLACK_EVENT_TYPES, SLACK_WEBHOOK_SET, slackSealing, workspaceOfSlackStream, type SlackEvent } from './events.js';
import * as sql from '../sql.js';

/**
 * Each workspace's Slack webhook, written inline so the PUT that sets it answers from it and the
 * next message goes to it. The URL stays sealed as its event is stored: opened only to post a
 * message or to show its hint, so the table holds no more in the clear than the log does.
 */
export const slackWebhooksProjection: Projection = {
  name: 'slack_webhooks',
  tables: ['slack_webhooks'],
  eventTypes: SLACK_EVENT_TYPES,
  async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
    for (const recorded of events) {
      const { event, sealed } = unopenedEvent<SlackEvent>({ sealed: slackSealing }, recorded);
      const workspaceId = workspaceOfSlackStream(recorded.streamId);
      if (event.type === SLACK_WEBHOOK_SET) await uow.query(sql.SLACK_WEBHOOK_UPSERT, [workspaceId, sealed, event.at]);
      else await uow.query(sql.SLACK_WEBHOOK_DELETE, [workspaceId]);
    }
  },
};
