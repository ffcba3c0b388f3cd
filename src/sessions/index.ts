import { fileURLToPath } from 'node:url';

/**
 * What other capabilities (the human page, webhooks, trials) may use of Sessions. Accepting a
 * person's answer is one unit of work (src/human/accept.ts):
 *
 *   ctx.store.command(async (uow) => {
 *     const state = await loadSession(uow, ctx.streamKeys, sessionId);   // fold of the stream
 *     const decision = decideAcceptance(state, submission);               // pure: events, replay or refusal
 *     // events: sign the receipt (its event id chosen up front), then
 *     const records = await appendSession(uow, ctx.streamKeys, sessionId, state.version, [...]);
 *     const after = fold(records, state);                                 // the answer, from the same evolve
 *     // ...and queue its webhook delivery in the same unit of work.
 *   })
 */
export {
  appendPurged,
  appendSession,
  findSessionByLink,
  loadSession,
  readSession,
  toSessionRecord,
  type LinkedSession,
  type PendingSessionEvent,
} from './store.js';
export { decideAcceptance, type AnswerDecision, type AnswerRefusal, type OwnerRefusal, type Submission } from './decide.js';
export { loadChangeableSession, openSession, ownedViewRow, type CreatedSession, type NewSession } from './commands.js';
export {
  currentInteraction,
  currentRevision,
  etagOf,
  fold,
  isErased,
  revisionAnswered,
  revisionInteraction,
  type AcceptedResponse,
  type ErasedSession,
  type PublicEvent,
  type SessionState,
  type SessionStatus,
} from './state.js';
export {
  RESPONSE_ACCEPTED,
  REVISION_PUBLISHED,
  SESSION_COMPLETED,
  SESSION_CREATED,
  SESSION_EVENT_TYPES,
  SESSION_PURGED,
  type PurgeReason,
  type ResponseAccepted,
  type SessionCompleted,
  type SessionCreated,
  type SessionPurged,
} from './events.js';
export { humanLinkHash, isSessionId, newSessionId } from './ids.js';
export { sessionViewProjection } from './projection.js';
export { withLinkExpiry } from './view.js';
/** The contract's examples of a Session, which a trial's operations show too. */
export { EXAMPLE_HUMAN_URL, EXAMPLE_INTERACTION, exampleSession, INVALID_INTERACTION, sessionIdParams } from './schemas.js';
/** The Sessions capability's tables: views, revisions (and through the view, the link lookup). */
export const SESSIONS_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
