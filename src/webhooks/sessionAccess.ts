import type { Tx } from '../../eventstore/index.js';
import type { OwnerPrincipal } from '../auth/owner.js';
import type { ServiceContext } from '../context.js';
import { loadOwnedSession } from '../sessions/index.js';
import type { AcceptedDelivery } from './queue.js';

/**
 * What the delivery routes need of a Session, and nothing more: that the caller's workspace owns
 * it, and its accepted responses as the queue takes them. The only place webhooks read Sessions.
 */

/**
 * The accepted responses of a Session the principal's workspace owns, in sequence order; 404
 * SESSION_NOT_FOUND when the Session is unknown or another workspace's.
 */
export async function ownedAcceptedResponses(tx: Tx, ctx: ServiceContext, principal: OwnerPrincipal, sessionId: string): Promise<AcceptedDelivery[]> {
  const state = await loadOwnedSession(tx, ctx, principal, sessionId);
  return state.responses.map((response) => ({ ...response, workspaceId: state.workspaceId, sessionId: state.id }));
}
