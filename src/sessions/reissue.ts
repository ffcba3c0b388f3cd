import type { OwnerPrincipal } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { loadChangeableSession, type CreatedSession } from './commands.js';
import { decideReissueLink, type OwnerRefusal } from './decide.js';
import { humanLinkHash, humanUrlOf, newHumanLinkToken } from './ids.js';
import { appendToSession } from './store.js';

/**
 * A new human link for a Session whose link leaked or was lost: session.link_reissued records the
 * new token's hash, the view's link lookup follows it in the same statement, and from the commit on
 * the old link opens nothing, as an unknown link. The new link is answered here and only here (only
 * its hash is kept). Responders' own links are theirs and stay as they are.
 */
export function reissueLink(
  ctx: Pick<ServiceContext, 'clock' | 'config' | 'store' | 'streamKeys'>,
  principal: OwnerPrincipal,
  sessionId: string,
): Promise<CreatedSession | OwnerRefusal> {
  return ctx.store.command(async (uow) => {
    const before = await loadChangeableSession(uow, ctx, principal, sessionId);
    if ('refused' in before) return before;
    // A token per try: a command run again after a lost race makes a new one.
    const token = newHumanLinkToken();
    const after = await appendToSession(uow, ctx.streamKeys, sessionId, before, decideReissueLink(before, { now: ctx.clock.now(), linkHash: humanLinkHash(token) }));
    return 'refused' in after ? after : { state: after.state, humanUrl: humanUrlOf(ctx.config.publicOrigin, token) };
  });
}
