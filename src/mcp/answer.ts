import { ClientError, type InteractiveSession, type Session } from '../client/index.js';

/** What get_answer reports of a Session. Pure: the caller passes the time. */

export type AnswerStatus = 'pending' | 'answered' | 'completed' | 'expired';

export interface Answer {
  status: AnswerStatus;
  /** The action the person chose (its ID). */
  action: string | null;
  /** The typed values of the newest accepted response. */
  data: Record<string, unknown> | null;
  accepted_at: string | null;
  /** The response's decision receipt (compact JWS). */
  receipt: string | null;
}

const HOUR_MS = 3_600_000;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * When a Session's human link stops taking answers. The owner API does not show it, but a Session
 * ID is a ULID, whose first ten characters are its creation time in milliseconds, and a link lives
 * for a fixed time after creation: 720 hours under the owner key, 168 under a developer API key.
 */
export function linkExpiresAt(sessionId: string, apiKey: string): Date {
  const createdMs = [...sessionId.slice('ses_'.length, 'ses_'.length + 10)].reduce((ms, char) => ms * 32 + CROCKFORD.indexOf(char), 0);
  const lifetimeHours = apiKey.startsWith('svc_sk_') ? 168 : 720;
  return new Date(createdMs + lifetimeHours * HOUR_MS);
}

const unanswered = (status: AnswerStatus): Answer => ({ status, action: null, data: null, accepted_at: null, receipt: null });

/**
 * `answered` while the current revision has its response, `completed` once the Session is closed
 * (with its newest response, if any), `expired` once the link can take no more answers, `pending`
 * until then.
 */
export function answerOf(session: Session, linkExpiry: Date, now: Date): Answer {
  if (session.status === undefined) throw new ClientError('NO_RESPONSE_POSSIBLE', `${session.id} is a display Session: it takes no answer.`);
  const { status, revision, responses } = session as InteractiveSession;
  const latest = responses.at(-1);
  const withLatest = (answerStatus: AnswerStatus): Answer =>
    latest
      ? { status: answerStatus, action: latest.action_id, data: latest.data, accepted_at: latest.accepted_at, receipt: latest.receipt }
      : unanswered(answerStatus);
  if (status === 'completed') return withLatest('completed');
  if (latest?.revision === revision) return withLatest('answered');
  return unanswered(now >= linkExpiry ? 'expired' : 'pending');
}
