import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { sessionViewProjection } from './projection.js';
import { SESSION_REFUSALS } from './refusals.js';
import { sessionRoutes } from './routes.js';

/**
 * What other capabilities (the human page, webhooks, receipts, trials) may use of Sessions. A
 * person's answer is accepted by acceptAnswer (acceptance.ts), one command through the event
 * store's pipeline; receipts and webhooks take part in it through the reactions their records
 * declare (AnswerReaction).
 */
export { acceptAnswer, type AnswerReaction, type ReactionRefusal, type ResolutionReaction } from './acceptance.js';
export { deliverableEvent, findSessionByLink, loadSession, readSession, type LapsedLink, type LinkedSession, type ResolvedDelivery } from './store.js';
export { linkLive, type AnswerRefusal, type OwnerRefusal } from './decide.js';
export { loadChangeableSession, openSession, ownedViewRow, type CreatedSession } from './commands.js';
export { expireSession, type ExpiryReaction } from './expiry.js';
export {
  currentInteraction,
  currentRevision,
  decisionOf,
  etagOf,
  isErased,
  sessionDecider,
  revisionInteraction,
  revisionSha256,
  type AcceptedResponse,
  type SessionState,
  type SessionStatus,
} from './state.js';
export {
  DECISION_RESOLVED,
  RESPONSE_ACCEPTED,
  REVISION_PUBLISHED,
  SESSION_COMPLETED,
  SESSION_CREATED,
  SESSION_EVENT_TYPES,
  SESSION_EXPIRED,
  SESSION_EXTENDED,
  SESSION_PURGED,
  sessionSealing,
  type PurgeReason,
  type SessionCompleted,
  type SessionCreated,
  type SessionExtended,
  type SessionPurged,
} from './events.js';
/** How Session streams are stored and read, for another capability's fold of them (purge's). */
export { sessionStreams } from './upcast.js';
export { humanLinkHash, isSessionId, newSessionId } from './ids.js';
/** What a revision holds, for the pages that render it and the trial that publishes one. */
export {
  fieldsOf,
  type Component,
  type DisplayInteraction,
  type DisplayValue,
  type FieldComponent,
  type FieldSchema,
  type FieldValue,
  type InteractiveInteraction,
  type Scalar,
  type ScalarRecord,
} from './interaction.js';
export { PATTERNS } from './limits.js';
/** What a Session's notification plan owes, for the jobs that send it (src/notifications). */
export { decideNotice, owedNotices } from './notices.js';
export { recordNotice } from './commands.js';
export { responderLinkToken } from './ids.js';
export type { NoticeKind, ResponderRecord } from './events.js';
export type { NoticeOutcome } from './decide.js';
export { checkInteraction } from './rules.js';
export { interactionSha256 } from './surfaceMeasure.js';
export { createRequestSchema, publishRequestSchema, REQUEST_SCHEMAS, sessionIdParams } from './requestSchemas.js';
export { sessionEventSchema, sessionResponseSchema } from './schemas.js';
/** The event feed lists a Session's events as its own GET does. */
export { eventItem } from './view.js';
/** A trial reads its Sessions' views as owners do, opened with each Session's key. */
export { openView, type StoredViewRow } from './storedView.js';
export { currentRevisionJoin, VIEW_BODIES } from './sql.js';
/** The contract's examples of a Session, which a trial's operations show too. */
export { EXAMPLE_HUMAN_URL, EXAMPLE_INTERACTION, EXAMPLE_RECEIPT, exampleSession, INTERACTION_REFUSALS } from './schemas.js';
export { SESSION_REFUSALS, type SessionRefusal } from './refusals.js';
export { ACTION_INTENTS, type Action } from './interaction.js';
export { checkResponse, responseSchemaOf } from './responseSchema.js';
export { parseCreateInteraction, parsePublishInteraction } from './validation/interaction.js';
export { sessionBodies, sessionBody, withLastMember, withLinkExpiry } from './view.js';

export const sessions: Capability = {
  name: 'sessions',
  contract: { tag: { name: 'Sessions', description: 'Create a Session and its private link, read it or wait for its answer, publish revisions, extend its link, complete it.' } },
  routes: sessionRoutes,
  // Its tables: views, revisions (and through the view, the link lookup).
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  inlineProjections: ({ streamKeys }) => [sessionViewProjection(streamKeys)],
  refusals: SESSION_REFUSALS,
};
