import type { Interaction } from './interaction.js';
import { responseSchemaText } from './responseSchema.js';
import { RESPONSE_ACCEPTED } from './events.js';
import type { AcceptedResponse, PublicEvent, SessionState } from './state.js';

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

function responseItem(response: AcceptedResponse): object {
  return {
    event_id: response.eventId,
    sequence: response.sequence,
    revision: response.revision,
    action_id: response.actionId,
    data: response.data,
    actor: LINK_HOLDER,
    accepted_at: response.acceptedAt,
    receipt: response.receipt,
  };
}

function eventItem(event: PublicEvent): object {
  const common = { event_id: event.eventId, sequence: event.sequence, type: event.type, revision: event.revision };
  if (event.type !== RESPONSE_ACCEPTED || !event.response) return { ...common, actor: OWNER, created_at: event.createdAt };
  return {
    ...common,
    actor: LINK_HOLDER,
    action_id: event.response.actionId,
    data: event.response.data,
    created_at: event.createdAt,
    receipt: event.response.receipt,
  };
}

/**
 * The members a revision shows in every body that shows it (the Session's, and the revision's
 * own): `"interaction":...` and, when interactive, `"response_schema":...`, as JSON.stringify
 * writes them. Rendered once per revision however many bodies a fold renders: the members of an
 * object are written one after another, so a body spliced from them has the bytes JSON.stringify
 * gives the whole object.
 */
const rendered = new WeakMap<Interaction, string>();

function revisionMembers(interaction: Interaction): string {
  let members = rendered.get(interaction);
  if (members === undefined) {
    members = `"interaction":${JSON.stringify(interactionBody(interaction))}`;
    if (interaction.mode !== 'display') members += `,"response_schema":${responseSchemaText(interaction)}`;
    rendered.set(interaction, members);
  }
  return members;
}

/** One stored revision: SessionResponse (display) or InteractiveSurfaceResponse. */
export function revisionBody(state: SessionState, revision: number): string | undefined {
  const interaction = state.revisions[revision - 1];
  if (!interaction) return undefined;
  return `{"id":${JSON.stringify(state.id)},"revision":${revision},${revisionMembers(interaction)}}`;
}

/** GET /v1/sessions/{id}: SessionResponse (display) or InteractiveSessionResponse. */
export function sessionBody(state: SessionState): string {
  const revision = state.revisions.length;
  const interaction = state.revisions[revision - 1]!;
  if (interaction.mode === 'display') return revisionBody(state, revision)!;
  const responses = JSON.stringify(state.responses.map(responseItem));
  return `{"id":${JSON.stringify(state.id)},"status":${JSON.stringify(state.status)},"revision":${revision},${revisionMembers(interaction)},"responses":${responses}}`;
}

/** GET /v1/sessions/{id}/events: SessionEventsResponse. */
export function eventsBody(state: SessionState): string {
  return JSON.stringify({ id: state.id, events: state.events.map(eventItem) });
}
