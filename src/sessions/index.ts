/**
 * What other capabilities (the human page, webhooks, trials) may use of Sessions. Accepting a
 * person's answer is one transaction:
 *
 *   withCommandTransaction(ctx.pool, async (tx) => {
 *     const state = await loadSession(tx, ctx, sessionId);        // fold of the stream
 *     const decision = decideAcceptance(state, submission);         // pure: accept, replay or refuse
 *     // accept: sign the receipt for decision.event (eventId chosen up front with newEventId()),
 *     const [recorded] = await appendSessionEvents(tx, ctx, sessionId, state.version,
 *       [{ event: { ...decision.event, receipt }, eventId }]);     // view projection written inline
 *     // ...and queue its webhook delivery in the same transaction.
 *   })
 */
export { findSessionByLink, loadSession, appendSessionEvents, type LinkedSession, type PendingSessionEvent } from './store.js';
export { decideAcceptance, type AcceptanceDecision, type Submission } from './decide.js';
export { loadOwnedSession, ownedViewRow, sessionNotFound } from './commands.js';
export {
  currentInteraction,
  currentRevision,
  etagOf,
  revisionAnswered,
  revisionInteraction,
  type AcceptedResponse,
  type PublicEvent,
  type SessionState,
  type SessionStatus,
} from './state.js';
export { RESPONSE_ACCEPTED, type ResponseAccepted } from './events.js';
export { isSessionId } from './ids.js';
