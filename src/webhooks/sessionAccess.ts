import type { Reader } from '../../eventstore/index.js';
import type { OwnerPrincipal } from '../auth/index.js';
import type { ServiceContext } from '../serviceContext.js';
import { loadChangeableSession, type OwnerRefusal } from '../sessions/index.js';
import type { AcceptedDelivery } from './deliveries/index.js';

/**
 * What the delivery routes need of a Session, and nothing more: that the caller's workspace owns
 * it, and its accepted responses as the queue takes them. (A dispatcher reads the Session too, to
 * render a delivery's body: deliveries/body.ts.)
 */

/**
 * The accepted responses of a Session the principal may change, in sequence order; a refusal
 * when it may only read it, or the Session is unknown or another workspace's.
 */
export async function ownedAcceptedResponses(
  db: Reader,
  ctx: Pick<ServiceContext, 'streamKeys'>,
  principal: OwnerPrincipal,
  sessionId: string,
): Promise<AcceptedDelivery[] | OwnerRefusal> {
  const state = await loadChangeableSession(db, ctx, principal, sessionId);
  if ('refused' in state) return state;
  return state.responses.map((response) => ({ workspaceId: state.workspaceId, sessionId: state.id, eventId: response.eventId }));
}
