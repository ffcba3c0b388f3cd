import type { ApiError } from '../http/errors.js';
import { refusalError, type RefusalTable } from '../http/refusal.js';
import type { AnswerRefusal, OwnerRefusal } from './decide.js';
import type { ListCursorRefusal } from './listCursor.js';
import type { ReferenceRefusal } from './references.js';
import { LIMITS, LINK_EXTENSION_FACTOR } from './limits.js';

/** What the Sessions routes refuse before a decision is asked: the request's own shape. */
export type SessionRequestRefusal =
  /** PATCH and complete change nothing without If-Match naming the current ETag. */
  | { refused: 'if_match_required' }
  /** A create carries the human link, stored only as a hash: it cannot be replayed. */
  | { refused: 'create_not_replayable'; route: string }
  | { refused: 'complete_takes_no_body' }
  /** An extension's deadline has the shape of a time but names none. */
  | { refused: 'link_expiry_invalid'; value: string }
  | { refused: 'revision_not_found'; revision: string }
  /** An interaction breaks a rule its schema cannot state (rules.ts); `problem` opens with the path. */
  | { refused: 'interaction_invalid'; problem: string }
  /** The canonical JSON of an interaction measures more UTF-8 bytes than a Surface may. */
  | { refused: 'surface_too_large'; measure: number }
  /** Only someone who can answer is notified: a display Session takes no answer. */
  | { refused: 'notify_not_interactive' }
  /** A human link is shown once: a request that would answer a new one cannot be replayed. */
  | { refused: 'link_not_replayable'; route: string }
  /** A `decision` breaks a rule its schema cannot state (decision.ts); `problem` opens with the path. */
  | { refused: 'decision_invalid'; problem: string };

export type SessionRefusal = OwnerRefusal | AnswerRefusal | SessionRequestRefusal | ReferenceRefusal | ListCursorRefusal;

/** Each refusal of Sessions, to an owner's request or a person's answer, as it answers over HTTP. */
export const SESSION_REFUSALS: RefusalTable<SessionRefusal> = {
  session_not_found: { status: 404, code: 'SESSION_NOT_FOUND', message: 'No such Session in this workspace.' },
  session_read_only: { status: 403, code: 'ACTION_NOT_ALLOWED', message: "This Session is a claimed trial's: its account's keys may read it, never change it." },
  display_session: { status: 409, code: 'ACTION_NOT_ALLOWED', message: 'A display Session takes no revision, no extension and is never completed.' },
  session_completed: { status: 409, code: 'SESSION_COMPLETED', message: 'The Session is completed and takes no further change or answer.' },
  if_match_stale: { status: 412, code: 'SESSION_REVISION_CONFLICT', message: "If-Match does not match the Session's current ETag; read it again and retry." },
  idempotency_conflict: { status: 409, code: 'IDEMPOTENCY_CONFLICT', message: 'This Idempotency-Key was used with a different request.' },
  link_lapsed: {
    status: 409,
    code: 'ACTION_NOT_ALLOWED',
    reason: 'link_expired',
    message: "The Session's link has lapsed; it is never reopened (create a new Session to ask again).",
    meaning: 'The link has lapsed and is never reopened (reason link_expired).',
  },
  link_expiry_not_later: {
    status: 400,
    code: 'INVALID_SCHEMA',
    reason: 'link_expiry_not_later',
    message: ({ current }) => `link_expires_at must be later than the link's current deadline, ${current}: an extension never moves it earlier.`,
    meaning: 'link_expires_at is not later than the current deadline (reason link_expiry_not_later).',
  },
  link_expiry_beyond_limit: {
    status: 400,
    code: 'INVALID_SCHEMA',
    reason: 'link_expiry_beyond_limit',
    message: ({ latest }) => `link_expires_at may be at most ${latest}: ${LINK_EXTENSION_FACTOR} times the lifetime the link was created with, counted from the Session's creation.`,
    meaning: `link_expires_at is past ${LINK_EXTENSION_FACTOR} times the link's first lifetime after the Session's creation (reason link_expiry_beyond_limit).`,
  },
  link_not_found: { status: 404, code: 'NOT_FOUND', message: 'This link is not valid.' },
  display_session_answer: { status: 405, code: 'ACTION_NOT_ALLOWED', message: 'This page shows information only and takes no answer.' },
  answer_conflict: { status: 409, code: 'IDEMPOTENCY_CONFLICT', message: 'This answer was already sent with different values.' },
  revision_stale: { status: 409, code: 'SESSION_REVISION_CONFLICT', message: 'The request changed while you were answering; please review the current version.' },
  action_not_found: { status: 400, code: 'ACTION_NOT_FOUND', message: 'That button is not part of this request.' },
  revision_answered: { status: 409, code: 'RESPONSE_LIMIT_REACHED', message: 'This request has already been answered.' },
  answer_invalid: { status: 422, code: 'VALIDATION_FAILED', message: 'Some answers need another look.' },
  if_match_required: { status: 428, code: 'PRECONDITION_REQUIRED', message: "If-Match with the Session's current ETag is required." },
  create_not_replayable: {
    status: 400,
    code: 'INVALID_SCHEMA',
    message: ({ route }) => `${route} refuses Idempotency-Key: the human link is stored only as a hash and cannot be replayed.`,
    meaning: 'An Idempotency-Key is refused: the human link cannot be replayed.',
  },
  link_not_replayable: {
    status: 400,
    code: 'INVALID_SCHEMA',
    message: ({ route }) => `${route} refuses Idempotency-Key: the new human link is stored only as a hash and cannot be replayed (send it again for another link).`,
    meaning: 'An Idempotency-Key is refused: the new human link cannot be replayed.',
  },
  session_cursor_unknown: { status: 400, code: 'INVALID_SCHEMA', message: 'The query parameter after is not a cursor this list gave (next_cursor).' },
  client_reference_in_use: {
    status: 409,
    code: 'CLIENT_REFERENCE_IN_USE',
    message: ({ sessionId }) => `A Session of this workspace holds this client_reference_id: ${sessionId} (details.session_id). Read it, or create with another reference.`,
    meaning: "Another live Session of the workspace holds this client_reference_id; `details.session_id` names it (never its link). Nothing was created.",
    details: ({ sessionId }) => ({ session_id: sessionId }),
  },
  complete_takes_no_body: { status: 400, code: 'INVALID_SCHEMA', message: 'POST /v1/sessions/{id}/complete takes no body.' },
  link_expiry_invalid: {
    status: 400,
    code: 'INVALID_SCHEMA',
    message: ({ value }) => `link_expires_at ${JSON.stringify(value)} is not a time that exists.`,
    meaning: 'link_expires_at has the shape of an RFC 3339 time but names a day or hour that does not exist.',
  },
  revision_not_found: { status: 404, code: 'NOT_FOUND', message: ({ revision }) => `The Session has no revision ${revision}.`, meaning: 'The Session has no such revision.' },
  interaction_invalid: {
    status: 400,
    code: 'INVALID_SCHEMA',
    message: ({ problem }) => problem,
    meaning: 'The interaction breaks a rule its schema cannot state (the message names the value); nothing was changed.',
  },
  notify_not_interactive: {
    status: 400,
    code: 'INVALID_SCHEMA',
    message: 'notify: only an interactive Session notifies responders (a display Session takes no answer).',
    reason: 'notify_not_interactive',
    meaning: 'The body carries `notify` for a display Session, which takes no answer; nothing was created.',
  },
  decision_invalid: {
    status: 400,
    code: 'INVALID_SCHEMA',
    message: ({ problem }) => problem,
    meaning: 'The decision names an action the revision does not have, counts and vetoes one action, asks more people than notify.email reaches, or comes without notify.email; nothing was changed.',
  },
  responder_link_required: {
    status: 403,
    code: 'ACTION_NOT_ALLOWED',
    reason: 'responder_link_required',
    message: 'Several people decide this request, each through the link mailed to them; this shared link only shows where it stands.',
  },
  responder_answered: {
    status: 409,
    code: 'RESPONSE_LIMIT_REACHED',
    reason: 'responder_answered',
    message: 'You have answered this request already; each person answers once.',
  },
  decision_resolved: {
    status: 409,
    code: 'RESPONSE_LIMIT_REACHED',
    reason: ({ outcome }) => `decision_${outcome}`,
    message: ({ outcome }) => `This request is decided already: ${outcome}. Your answer was not recorded.`,
    meaning: 'The decision is made (reason decision_approved or decision_vetoed); the answer was not recorded.',
  },
  surface_too_large: {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: ({ measure }) => `interaction measures ${measure} bytes (UTF-8 bytes of its canonical JSON); a Surface may measure at most ${LIMITS.surfaceBytes}.`,
    meaning: `The stored interaction would measure more than ${LIMITS.surfaceBytes} bytes.`,
  },
};

/** A refusal of Sessions as the envelope's error, for a route (or the checks a tool runs in its place) to throw. */
export const sessionRefused = (refusal: SessionRefusal): ApiError => refusalError(SESSION_REFUSALS, refusal);

/** An interaction refused by a rule: the path of what breaks it, then why. */
export const invalidInteraction = (problem: string): ApiError => sessionRefused({ refused: 'interaction_invalid', problem });
