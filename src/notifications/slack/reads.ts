import { erased, type Reader, type StreamKeys } from '../../../eventstore/index.js';
import { slackSealing, slackStreamId } from './events.js';
import type { SlackState } from './state.js';
import * as sql from '../sql.js';

/** The workspace's Slack webhook, its URL opened with the stream's key; null when it has none. */
export async function slackWebhookOf({ streamKeys }: { streamKeys: StreamKeys }, db: Reader, workspaceId: string): Promise<SlackState> {
  const { rows } = await db.query<{ sealed_url: string; set_at: Date }>(sql.SLACK_WEBHOOK, [workspaceId]);
  const row = rows[0];
  if (!row) return null;
  const opened = slackSealing.openSealed(row.sealed_url, await streamKeys.opener(db, slackStreamId(workspaceId)));
  if (erased(opened) || typeof opened.webhook_url !== 'string') throw new Error(`the sealed Slack webhook of ${workspaceId} holds no URL`);
  return { url: opened.webhook_url, setAt: row.set_at.toISOString() };
}
