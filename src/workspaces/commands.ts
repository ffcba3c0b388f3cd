import { handleCommand } from '../../eventstore/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { decideDisplayName } from './decide.js';
import { workspaceStreamId } from './events.js';
import { workspaceDecider, type WorkspaceProfile } from './state.js';

/** Sets the workspace's display name: one unit of work on its stream, the profile written with it. */
export async function setDisplayName(ctx: Pick<ServiceContext, 'clock' | 'store'>, workspaceId: string, displayName: string): Promise<WorkspaceProfile> {
  const handled = await ctx.store.command((uow) =>
    handleCommand(uow, workspaceDecider, workspaceStreamId(workspaceId), (profile) => decideDisplayName(profile, { displayName, now: ctx.clock.now() })),
  );
  return handled.state;
}
