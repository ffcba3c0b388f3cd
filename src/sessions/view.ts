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
const revisionText = (state: SessionState, revision: number, members: string): string =>
  `{"id":${JSON.stringify(state.id)},"revision":${revision},${members}}`;

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

function sessionText(state: SessionState, members: string): string {
  const revision = state.revisions.length;
  // Only a Session created with a reference shows it: every other body keeps its bytes.
  const id = `"id":${JSON.stringify(state.id)}${state.clientReferenceId === null ? '' : `,"client_reference_id":${JSON.stringify(state.clientReferenceId)}`}`;
  if (state.revisions[revision - 1]!.mode === 'display') return `{${id},"revision":${revision},${members}}`;
  const responses = JSON.stringify(state.responses.map(responseItem));
  // Only a Session some plan reached shows its responders: every other body keeps its bytes.
  const responders = state.responders.length === 0 ? '' : `,"responders":${JSON.stringify(responderViews(state))}`;
  const decision = decisionView(state);
  const decided = decision === undefined ? '' : `,"decision":${JSON.stringify(decision)}`;
  return `{${id},"status":${JSON.stringify(state.status)},"revision":${revision},${members},"responses":${responses}${responders}${decided}}`;
}

/** A JSON object's text with one more member written last: the bytes JSON.stringify gives the object with it. */
export const withLastMember = (body: string, name: string, value: unknown): string => `${body.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value)}}`;

/**
 * A Session's body as owners receive it: the stored view with its link's expiry as the last
 * member. The expiry is kept in the view's own column, so it is added as the body is served, never
 * stored in it: views stored before the member existed are served with it without rewriting them,
 * and a rebuild writes the same bytes as before. Only an extension moves it, and that is an Event
 * of its own, so the ETag changes with it.
 */
export const withLinkExpiry = (body: string, linkExpiresAt: string): string => withLastMember(body, 'link_expires_at', linkExpiresAt);

/** PATCH and complete answer: SessionResponse (display) or InteractiveSessionResponse, as GET /v1/sessions/{id} serves it. */
export function sessionBody(state: SessionState): string {
  return withLinkExpiry(sessionText(state, revisionMembers(state.revisions.at(-1)!)), state.linkExpiresAt);
}

/**
 * The Session's body and the bodies of the given revisions (undefined for one it does not have),
 * each revision's members rendered once however many of the bodies show it: what a projection
 * writes after an append that published a revision, or after a whole stream.
 */
export function sessionBodies(state: SessionState, revisions: readonly number[]): { session: string; revisions: Array<string | undefined> } {
  const rendered = new Map<number, string>();
  const members = (revision: number): string => {
    let text = rendered.get(revision);
    if (text === undefined) rendered.set(revision, (text = revisionMembers(state.revisions[revision - 1]!)));
    return text;
  };
  return {
    session: sessionText(state, members(state.revisions.length)),
    revisions: revisions.map((revision) => (state.revisions[revision - 1] ? revisionText(state, revision, members(revision)) : undefined)),
  };
}

/** GET /v1/sessions/{id}/events: SessionEventsResponse. */
export function eventsBody(state: SessionState): string {
  return JSON.stringify({ id: state.id, events: state.events.map(eventItem) });
}
