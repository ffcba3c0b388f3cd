import { createHash } from 'node:crypto';
import type { DecidingResponse, ResolutionClaims } from '../client/types.js';
import { revisionInteraction, revisionSha256, type AcceptedResponse, type ResolutionReaction } from '../sessions/index.js';
import { decisionSummary, receiptExpiry, stepId } from './claims.js';
import { latestPurgeOf, RESOLUTION_TYP, signReceipt } from './sign.js';

/**
 * The resolution receipt of a decision by several people (docs/decisions.md): signed like an
 * answer's receipt, with the same key, in the unit of work that accepts the deciding answer, after
 * that answer's own receipt. Its claims name the outcome and bind each deciding answer's receipt by
 * the SHA-256 of its compact JWS, so the one receipt stands for all of them, and each still
 * verifies on its own.
 */

/** SHA-256 (hex) of a compact JWS, as its ASCII bytes. */
export const receiptSha256 = (jws: string): string => createHash('sha256').update(jws, 'ascii').digest('hex');

function deciding(response: AcceptedResponse): DecidingResponse {
  // Every answer to a decision carries its receipt: it was signed as it was accepted.
  if (response.receipt === null || response.responderId === undefined) throw new Error(`deciding answer ${response.eventId} has no receipt or no responder`);
  return { event_id: response.eventId, sub: response.responderId, action_id: response.actionId, receipt_sha256: receiptSha256(response.receipt) };
}

export const signResolution: ResolutionReaction = {
  react(resolution, ctx) {
    const { session, event, eventId, now } = resolution;
    const interaction = revisionInteraction(session, event.revision)!;
    const decision = session.decisions[event.revision - 1]!;
    const step = stepId(session.id, event.revision);
    const how = event.outcome === 'approved' ? `Approved by ${decision.required}` : 'Vetoed';
    const claims: ResolutionClaims = {
      iss: ctx.config.publicOrigin,
      aud: session.workspaceId,
      sub: step,
      jti: eventId,
      iat: Math.floor(now.getTime() / 1000),
      exp: receiptExpiry(now, latestPurgeOf(session)),
      resolved_at: now.toISOString(),
      workspace_id: session.workspaceId,
      session_id: session.id,
      event_id: eventId,
      step_id: step,
      revision: event.revision,
      revision_sha256: revisionSha256(session, event.revision),
      outcome: event.outcome,
      required: decision.required,
      summary: decisionSummary(how, interaction.title, event.revision),
      responses: resolution.deciding.map(deciding),
    };
    const receipt = signReceipt(ctx.receiptKeys, claims, RESOLUTION_TYP);
    if (typeof receipt !== 'string') return receipt;
    resolution.event = { ...event, receipt };
  },
};
