import { HOUR } from '../clock.js';
import { revisionInteraction, type AnswerReaction } from '../sessions/index.js';
import { buildReceiptClaims } from './claims.js';
import { signReceipt } from './sign.js';

/**
 * The receipt of an accepted answer, signed in the accepting unit of work before the answer is
 * stored: it names the event (its id chosen up front) and promises the return channel settled
 * for it. A failure to sign (no keys) accepts nothing.
 */
export const signAcceptedAnswer: AnswerReaction = {
  react(acceptance, _read, ctx) {
    const { session, event, eventId, now } = acceptance;
    const claims = buildReceiptClaims({
      origin: ctx.config.publicOrigin,
      workspaceId: session.workspaceId,
      sessionId: session.id,
      eventId,
      revision: event.revision,
      interaction: revisionInteraction(session, event.revision)!,
      actionId: event.action_id,
      data: event.data,
      linkHash: session.linkHash,
      acceptedAt: now,
      // The latest purge any extension can bring: the link's latest possible deadline plus the retention.
      latestPurgeAt: new Date(new Date(session.linkLatestAt).getTime() + session.retentionHours * HOUR),
      returnChannel: acceptance.returnChannel,
    });
    acceptance.event = { ...event, receipt: signReceipt(ctx.receiptKeys, claims) };
  },
};
