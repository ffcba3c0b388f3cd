import { sign } from 'node:crypto';
import { canonicalJson } from '../../eventstore/index.js';
import { HOUR } from '../clock.js';
import { revisionInteraction, revisionSha256, type AnswerReaction, type SessionState } from '../sessions/index.js';
import { buildReceiptClaims } from './claims.js';
import type { ReceiptKeyRing } from '../receiptKeys.js';
import type { ReceiptRefusal } from './refusals.js';

const RECEIPT_TYP = 'svc-receipt+jwt';
/** A resolution receipt's type: it says who decided, not what one person answered. */
export const RESOLUTION_TYP = 'svc-decision+jwt';

const base64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** Each protected header as encoded, by type and key id: they are few, and every receipt repeats one. */
const headers = new Map<string, string>();

function encodedHeader(typ: string, kid: string): string {
  const key = `${typ} ${kid}`;
  let header = headers.get(key);
  if (header === undefined) headers.set(key, (header = base64url(canonicalJson({ alg: 'EdDSA', typ, kid }))));
  return header;
}

/**
 * A compact JWS (EdDSA over Ed25519) whose payload is exactly the RFC 8785 bytes of the claims, so
 * anyone can recompute and compare them. Signed with the active key; without keys, refused (the
 * unit of work that wanted it appends nothing).
 */
export function signReceipt(keys: ReceiptKeyRing | undefined, claims: object, typ: string = RECEIPT_TYP): string | ReceiptRefusal {
  if (!keys) return { refused: 'receipt_keys_unavailable' };
  const signingInput = `${encodedHeader(typ, keys.active.kid)}.${base64url(canonicalJson(claims))}`;
  const signature = sign(null, Buffer.from(signingInput, 'ascii'), keys.active.privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
}

/** The latest purge any extension can bring: the link's latest possible deadline plus the retention. */
export const latestPurgeOf = (session: SessionState): Date => new Date(new Date(session.linkLatestAt).getTime() + session.retentionHours * HOUR);

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
      revisionSha256: revisionSha256(session, event.revision),
      actionId: event.action_id,
      data: event.data,
      linkHash: session.linkHash,
      ...(event.responder_id === undefined
        ? {}
        : { responderId: event.responder_id, responderChannel: session.responders.find((r) => r.id === event.responder_id)?.channel ?? 'email' }),
      acceptedAt: now,
      latestPurgeAt: latestPurgeOf(session),
      returnChannel: acceptance.returnChannel,
    });
    const receipt = signReceipt(ctx.receiptKeys, claims);
    if (typeof receipt !== 'string') return receipt;
    acceptance.event = { ...event, receipt };
  },
};

declare module '../sessions/acceptance.js' {
  interface ReactionRefusals {
    receipts: ReceiptRefusal;
  }
}
