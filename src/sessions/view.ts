import type { Interaction } from './interaction.js';
import { responseSchemaText } from './responseSchema.js';
import { approvalsOf } from './decision.js';
import { DECISION_RESOLVED, RESPONSE_ACCEPTED, SESSION_EXPIRED } from './events.js';
import { responderViews } from './notices.js';
import { currentRevision, decisionOf, type AcceptedResponse, type PublicEvent, type SessionState } from './state.js';

/**
 * The JSON bodies owners read, rendered from state. Key order is fixed here, so a body is a pure
 * function of the log: repeated reads and a rebuilt projection give the same bytes.
 */

function interactionBody(interaction: Interaction): object {
  const common = {
    mode: interaction.mode,
    title: interaction.title,
    ...(interaction.description === undefined ? {} : { description: interaction.description }),
    source: interaction.source,
  };
  return interaction.mode === 'display'
    ? common
    : { ...common, actions: interaction.actions, response_policy: interaction.response_policy };
}

const LINK_HOLDER = { assurance: 'link_holder' } as const;
const OWNER = { assurance: 'owner' } as const;
const SERVICE = { assurance: 'service' } as const;

/** Who answered: whoever held human_url, or the responder whose own link it came through (emailed, or posted to Slack). */
const answerActor = (response: AcceptedResponse): object =>
  response.responderId === undefined
    ? LINK_HOLDER
    : { assurance: response.responderChannel === 'slack' ? 'slack_channel' : 'email_link', responder_id: response.responderId };

function responseItem(response: AcceptedResponse): object {
  return {
    event_id: response.eventId,
    sequence: response.sequence,
    revision: response.revision,
    action_id: response.actionId,
    data: response.data,
    actor: answerActor(response),
    accepted_at: response.acceptedAt,
    receipt: response.receipt,
  };
}

/** One public Event, as GET /v1/sessions/{id}/events lists it (and the workspace feed, with its Session's id). */
export function eventItem(event: PublicEvent): object {
  const common = { event_id: event.eventId, sequence: event.sequence, type: event.type, revision: event.revision };
  if (event.notice) {
    const { responderId, kind, failure } = event.notice;
    return { ...common, actor: SERVICE, responder_id: responderId, kind, ...(failure === undefined ? {} : { reason: failure }), created_at: event.createdAt };
  }
  if (event.type === DECISION_RESOLVED && event.resolution) {
    const { outcome, deciding, receipt } = event.resolution;
    return { ...common, actor: SERVICE, outcome, responses: deciding, created_at: event.createdAt, receipt };
  }
  const deadline = event.linkExpiresAt === undefined ? {} : { link_expires_at: event.linkExpiresAt };
  if (event.type === SESSION_EXPIRED) return { ...common, actor: SERVICE, created_at: event.createdAt, ...deadline };
  if (event.type !== RESPONSE_ACCEPTED || !event.response) return { ...common, actor: OWNER, created_at: event.createdAt, ...deadline };
  return {
    ...common,
    actor: answerActor(event.response),
    action_id: event.response.actionId,
    data: event.response.data,
    created_at: event.createdAt,
    receipt: event.response.receipt,
  };
}

/**
 * The members a revision shows in every body that shows it (the Session's, and the revision's
 * own): `"interaction":...` and, when interactive, `"response_schema":...`, as JSON.stringify
 * writes them. The members of an object are written one after another, so a body spliced from
 * them has the bytes JSON.stringify gives the whole object.
 */
function revisionMembers(interaction: Interaction): string {
  const members = `"interaction":${JSON.stringify(interactionBody(interaction))}`;
  return interaction.mode === 'display' ? members : `${members},"response_schema":${responseSchemaText(interaction)}`;
}

/** One stored revision: SessionResponse (display) or InteractiveSurfaceResponse. */
const revisionText = (state: SessionState, revision: number): string =>
  `{"id":${JSON.stringify(state.id)},"revision":${revision},${revisionMembers(state.revisions[revision - 1]!)}}`;

/**
 * Where the current revision's decision by several people stands: who approved so far, who vetoed,
 * and once resolved, how, when and its resolution receipt. Undefined for a revision its first
 * answer settles, so every other body keeps its bytes.
 */
function decisionView(state: SessionState): object | undefined {
  const revision = currentRevision(state);
  const rule = decisionOf(state, revision);
  if (!rule) return undefined;
  const answers = state.responses.filter((r) => r.revision === revision);
  const resolved = state.resolutions.find((r) => r.revision === revision);
  return {
    required: rule.required,
    approvals: approvalsOf(rule, answers).map((a) => a.responderId),
    vetoed_by: answers.find((a) => rule.veto.includes(a.actionId))?.responderId ?? null,
    outcome: resolved?.outcome ?? null,
    resolved_at: resolved?.at ?? null,
    receipt: resolved?.receipt ?? null,
  };
}

/**
 * The Session's body without its revision's members: what its view stores, beside the revision's
 * row in session_revisions that holds them. An answer changes the frame, never the members (a
 * Surface and its schema: kilobytes, most of the body), so it writes only the frame again.
 */
function sessionFrame(state: SessionState): string {
  const revision = state.revisions.length;
  // Only a Session created with a reference shows it: every other body keeps its bytes.
  const id = `"id":${JSON.stringify(state.id)}${state.clientReferenceId === null ? '' : `,"client_reference_id":${JSON.stringify(state.clientReferenceId)}`}`;
  if (state.revisions[revision - 1]!.mode === 'display') return `{${id},"revision":${revision}}`;
  const responses = JSON.stringify(state.responses.map(responseItem));
  // Only a Session some plan reached shows its responders: every other body keeps its bytes.
  const responders = state.responders.length === 0 ? '' : `,"responders":${JSON.stringify(responderViews(state))}`;
  const decision = decisionView(state);
  const decided = decision === undefined ? '' : `,"decision":${JSON.stringify(decision)}`;
  return `{${id},"status":${JSON.stringify(state.status)},"revision":${revision},"responses":${responses}${responders}${decided}}`;
}

const REVISION_MEMBER = ',"revision":';

/**
 * Where a body's revision members go: just after its `"revision":N` member. It is found by its
 * first occurrence, which is always that member: the members before it are `id`,
 * `client_reference_id` and `status`, whose JSON strings cannot hold an unescaped quote.
 */
function afterRevisionNumber(body: string): number {
  const start = body.indexOf(REVISION_MEMBER);
  if (start < 0) throw new Error('a Session body without its revision');
  let end = start + REVISION_MEMBER.length;
  while (body.charCodeAt(end) >= 48 && body.charCodeAt(end) <= 57) end++;
  return end;
}

/** A stored revision's members: its text without the id and number that open it, nor its closing brace. */
function membersOf(revisionBody: string): string {
  const end = afterRevisionNumber(revisionBody);
  return revisionBody.slice(end + 1, -1);
}

/**
 * A Session's body from its stored view (the frame) and its current revision's stored body: the
 * frame with the revision's members put back after its revision's number, the bytes
 * JSON.stringify gives the whole. A view stored whole by an earlier release already holds them
 * there, and is served as it is until written again.
 */
export function joinedBody(frame: string, revisionBody: () => string): string {
  const at = afterRevisionNumber(frame);
  return frame.startsWith(',"interaction":', at) ? frame : withMembersAt(frame, at, membersOf(revisionBody()));
}

const withMembersAt = (frame: string, at: number, members: string): string => `${frame.slice(0, at)},${members}${frame.slice(at)}`;

/** A JSON object's text with one more member written last: the bytes JSON.stringify gives the object with it. */
export const withLastMember = (body: string, name: string, value: unknown): string => `${body.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value)}}`;

/**
 * A Session's body as owners receive it: the stored view (joinedBody) with its link's expiry as
 * the last member. The expiry is kept in the view's own column, so it is added as the body is
 * served, never stored in it: views stored before the member existed are served with it without
 * rewriting them. Only an extension moves it, and that is an Event of its own, so the ETag changes
 * with it.
 */
export const withLinkExpiry = (body: string, linkExpiresAt: string): string => withLastMember(body, 'link_expires_at', linkExpiresAt);

/** PATCH and complete answer: SessionResponse (display) or InteractiveSessionResponse, as GET /v1/sessions/{id} serves it. */
export function sessionBody(state: SessionState): string {
  const frame = sessionFrame(state);
  return withLinkExpiry(withMembersAt(frame, afterRevisionNumber(frame), revisionMembers(state.revisions.at(-1)!)), state.linkExpiresAt);
}

/**
 * What a projection stores of a Session after an append, or after a whole stream: its frame, and
 * the bodies of the given revisions (undefined for one it does not have).
 */
export function sessionBodies(state: SessionState, revisions: readonly number[]): { frame: string; revisions: Array<string | undefined> } {
  return {
    frame: sessionFrame(state),
    revisions: revisions.map((revision) => (state.revisions[revision - 1] ? revisionText(state, revision) : undefined)),
  };
}

/** GET /v1/sessions/{id}/events: SessionEventsResponse. */
export function eventsBody(state: SessionState): string {
  return JSON.stringify({ id: state.id, events: state.events.map(eventItem) });
}
