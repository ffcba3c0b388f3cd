import type { Decider, Decision } from '../../../eventstore/index.js';
import {
  DEFAULT_EVENTS,
  ENDPOINT_REGISTERED,
  ENDPOINT_SUBSCRIBED,
  ENDPOINT_VERIFIED,
  SECRET_CREATED,
  SECRET_RESEALED,
  type EndpointVerified,
  type SecretCreated,
  type SecretResealed,
  type Subscribable,
  type WebhookEvent,
} from './events.js';
import { ROTATION_OVERLAP_MS, type HeldSecret, type SigningSecret } from './secrets.js';
import { webhookStreams } from './upcast.js';

/** A workspace's webhook configuration folded from its stream, and the decisions made on it. */

const VERIFICATION_VALIDITY_MS = 30 * 24 * 3_600_000;

export interface Endpoint {
  id: string;
  url: string;
  createdAt: string;
  verifiedAt: string | null;
  verificationExpiresAt: string | null;
  /** The Session events it receives. */
  events: readonly Subscribable[];
}

export interface WebhookState {
  endpoint: Endpoint | null;
  /** Oldest first. */
  secrets: HeldSecret[];
}

const EMPTY_WEBHOOK: WebhookState = { endpoint: null, secrets: [] };

/** Verified reads as pending again once its 30 days are over. */
export const isVerified = (endpoint: Pick<Endpoint, 'verificationExpiresAt'>, now: Date): boolean =>
  endpoint.verificationExpiresAt !== null && new Date(endpoint.verificationExpiresAt) > now;

function evolve(state: WebhookState, event: WebhookEvent): WebhookState {
  switch (event.type) {
    case ENDPOINT_REGISTERED:
      return {
        ...state,
        endpoint: { id: event.endpoint_id, url: event.url, createdAt: event.at, verifiedAt: null, verificationExpiresAt: null, events: event.events ?? DEFAULT_EVENTS },
      };
    case ENDPOINT_SUBSCRIBED:
      if (state.endpoint?.id !== event.endpoint_id) return state;
      return { ...state, endpoint: { ...state.endpoint, events: event.events } };
    case ENDPOINT_VERIFIED:
      if (state.endpoint?.id !== event.endpoint_id) return state;
      return { ...state, endpoint: { ...state.endpoint, verifiedAt: event.at, verificationExpiresAt: event.expires_at } };
    case SECRET_CREATED: {
      const retired = state.secrets.map((s) => (s.kid === event.retires?.kid ? { ...s, retireAt: event.retires.retire_at } : s));
      return { ...state, secrets: [...retired, { kid: event.kid, secret: event.secret, sealedByInitial: event.sealed_by_initial ?? null, createdAt: event.at, retireAt: null }] };
    }
    case SECRET_RESEALED:
      return { ...state, secrets: state.secrets.map((s) => (s.kid === event.kid ? { ...s, secret: event.secret, sealedByInitial: null } : s)) };
  }
}

/** A workspace's webhook stream (`webhook-<workspace id>`): its secrets sealed as its kind declares, and kept sealed in its projection until one signs. */
export const webhookDecider: Decider<WebhookState, WebhookEvent> = { initialState: EMPTY_WEBHOOK, evolve, ...webhookStreams };

/** The same Session events, whatever their order. */
const sameEvents = (a: readonly Subscribable[], b: readonly Subscribable[]): boolean => a.length === b.length && a.every((e) => b.includes(e));

/** What a resealing event holds until the command's step opens the secret from data key `initial`. */
const TO_BE_OPENED = '';

/**
 * PUT /v1/webhook: a new URL replaces the endpoint (pending until verified); the same URL again
 * changes nothing, so a retried PUT never drops a verification, unless it asks for other Session
 * events: then the endpoint, verified or not, receives those from now on. The first registration
 * also creates the workspace's signing secret, drawn by the caller (sealed as the event is stored).
 */
export function register(
  state: WebhookState,
  command: { workspaceId: string; endpointId: string; url: string; events: Subscribable[]; at: Date; secret: SigningSecret },
): WebhookEvent[] {
  const at = command.at.toISOString();
  if (state.endpoint?.url === command.url) {
    if (sameEvents(state.endpoint.events, command.events)) return [];
    return [{ type: ENDPOINT_SUBSCRIBED, at, endpoint_id: state.endpoint.id, events: command.events }];
  }
  const events: WebhookEvent[] = [
    {
      type: ENDPOINT_REGISTERED,
      at,
      workspace_id: command.workspaceId,
      endpoint_id: command.endpointId,
      url: command.url,
      replaces: state.endpoint?.id ?? null,
      events: command.events,
    },
  ];
  if (state.secrets.length === 0) {
    events.push({ type: SECRET_CREATED, at, workspace_id: command.workspaceId, kid: command.secret.kid, secret: command.secret.secret, retires: null });
  }
  return events;
}

/** A successful challenge counts only for the endpoint it was sent to, if that is still the current one. */
export function recordVerification(state: WebhookState, command: { endpointId: string; at: Date }): Decision<EndpointVerified, { refused: 'endpoint_replaced' }> {
  if (state.endpoint?.id !== command.endpointId) return { refused: 'endpoint_replaced' };
  const expiresAt = new Date(command.at.getTime() + VERIFICATION_VALIDITY_MS).toISOString();
  return { events: [{ type: ENDPOINT_VERIFIED, at: command.at.toISOString(), endpoint_id: command.endpointId, expires_at: expiresAt }] };
}

/**
 * A rotation adds a secret (drawn by the caller); the one that was newest keeps
 * signing for the 24-hour overlap. Older secrets still in their overlap keep their own retire time.
 * A workspace with no endpoint has nothing to rotate.
 */
export function rotate(state: WebhookState, command: { workspaceId: string; at: Date; secret: SigningSecret }): Decision<SecretCreated, { refused: 'not_configured' }> {
  if (!state.endpoint) return { refused: 'not_configured' };
  const current = state.secrets.filter((s) => s.retireAt === null).at(-1);
  const retires = current ? { kid: current.kid, retire_at: new Date(command.at.getTime() + ROTATION_OVERLAP_MS).toISOString() } : null;
  return {
    events: [{ type: SECRET_CREATED, at: command.at.toISOString(), workspace_id: command.workspaceId, kid: command.secret.kid, secret: command.secret.secret, retires }],
  };
}

/** Each secret still sealed with data key `initial` is to be sealed again with the stream's key (opened by a step: its value stays the same). */
export function reseal(state: WebhookState, command: { workspaceId: string; at: Date }): SecretResealed[] {
  return state.secrets
    .filter((s) => s.sealedByInitial !== null)
    .map((s) => ({ type: SECRET_RESEALED, at: command.at.toISOString(), workspace_id: command.workspaceId, kid: s.kid, secret: TO_BE_OPENED }));
}
