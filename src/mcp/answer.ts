import { ClientError, linkExpired, type InteractiveSession, type Session, type SessionDecision } from '../client/index.js';

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
  /** When the link stops taking answers, as the service states it. */
  link_expires_at: string;
  /** A Session several people decide: how it stands (its outcome null until resolved). */
  decision?: DecisionOutcome;
}

export interface DecisionOutcome {
  required: number;
  outcome: 'approved' | 'vetoed' | null;
  /** The responders who chose a counted action, in the order accepted. */
  approvals: string[];
  vetoed_by: string | null;
  resolved_at: string | null;
}

/**
 * `answered` while the current revision has its response, `completed` once the Session is closed
 * (with its newest response, if any), `expired` once the link can take no more answers (its
 * `link_expires_at`, as the service states it), `pending` until then.
 */
export function answerOf(session: Session, now: Date): Answer {
  if (session.status === undefined) throw new ClientError('NO_RESPONSE_POSSIBLE', `${session.id} is a display Session: it takes no answer.`);
  const { status, revision, responses, link_expires_at } = session as InteractiveSession;
  if (session.decision) return decisionAnswer({ ...(session as InteractiveSession), decision: session.decision }, now);
  const latest = responses.at(-1);
  const unanswered = (answerStatus: AnswerStatus): Answer => ({ status: answerStatus, action: null, data: null, accepted_at: null, receipt: null, link_expires_at });
  const withLatest = (answerStatus: AnswerStatus): Answer =>
    latest
      ? { status: answerStatus, action: latest.action_id, data: latest.data, accepted_at: latest.accepted_at, receipt: latest.receipt, link_expires_at }
      : unanswered(answerStatus);
  if (status === 'completed') return withLatest('completed');
  if (latest?.revision === revision) return withLatest('answered');
  return unanswered(linkExpired(session, now) ? 'expired' : 'pending');
}

/**
 * A Session several people decide answers with its outcome, never one person's response:
 * `answered` once the decision resolved (accepted_at its resolution, receipt the resolution
 * receipt that binds every deciding answer's), `completed`, `expired` or `pending` as above.
 */
function decisionAnswer(session: InteractiveSession & { decision: SessionDecision }, now: Date): Answer {
  const { required, outcome, approvals, vetoed_by, resolved_at, receipt } = session.decision;
  const resolved = outcome !== null;
  const status: AnswerStatus = session.status === 'completed' ? 'completed' : resolved ? 'answered' : linkExpired(session, now) ? 'expired' : 'pending';
  return {
    status,
    action: null,
    data: null,
    accepted_at: resolved_at,
    receipt: resolved ? receipt : null,
    link_expires_at: session.link_expires_at,
    decision: { required, outcome: outcome as DecisionOutcome['outcome'], approvals, vetoed_by, resolved_at },
  };
}
