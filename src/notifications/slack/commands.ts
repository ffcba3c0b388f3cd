import { handleCommand } from '../../../eventstore/index.js';
import type { ServiceContext } from '../../serviceContext.js';
import { slackStreamId, type SlackEvent } from './events.js';
import { decideRemoveWebhook, decideSetWebhook, slackDecider, type SlackState } from './state.js';

type Context = Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>;

/** One unit of work on the workspace's Slack stream, its projection written with it; the setting after it. */
async function onSlackStream(ctx: Context, workspaceId: string, decide: (state: SlackState, now: Date) => { events: SlackEvent[] }): Promise<SlackState> {
  const handled = await ctx.store.command((uow) =>
    handleCommand(uow, slackDecider, slackStreamId(workspaceId), (state) => decide(state, ctx.clock.now()), { keys: ctx.streamKeys }),
  );
  return handled.state;
}

/** PUT /v1/notifications/slack: the URL (checked already) sealed as its event is stored. */
export const setSlackWebhook = (ctx: Context, workspaceId: string, url: string): Promise<SlackState> =>
  onSlackStream(ctx, workspaceId, (state, now) => decideSetWebhook(state, { url, now }));

/** DELETE /v1/notifications/slack. */
export const removeSlackWebhook = (ctx: Context, workspaceId: string): Promise<SlackState> =>
  onSlackStream(ctx, workspaceId, (state, now) => decideRemoveWebhook(state, { now }));
