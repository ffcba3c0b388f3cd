import { SealedFields } from '../../../eventstore/index.js';

/**
 * The events of a workspace's webhook stream (`webhook-<workspace id>`): its endpoint, each
 * verification and each signing secret. Secrets are stored sealed with the stream's data key, by
 * the sealing scheme every stream kind shares (webhookSealing); those created before were sealed
 * with the deployment data key `initial`, until sealed again (upcast.ts).
 */

export const ENDPOINT_REGISTERED = 'webhook.endpoint_registered';
export const ENDPOINT_VERIFIED = 'webhook.endpoint_verified';
export const SECRET_CREATED = 'webhook.secret_created';
export const SECRET_RESEALED = 'webhook.secret_resealed';
/** The endpoint's URL stays, the Session events it asked for change. */
export const ENDPOINT_SUBSCRIBED = 'webhook.endpoint_subscribed';

export const WEBHOOK_EVENT_TYPES = [ENDPOINT_REGISTERED, ENDPOINT_VERIFIED, SECRET_CREATED, SECRET_RESEALED, ENDPOINT_SUBSCRIBED] as const;

/** The Session events an endpoint may ask for; every endpoint receives the first. */
export const SUBSCRIBABLE = ['response.accepted', 'session.expired', 'decision.resolved'] as const;
export type Subscribable = (typeof SUBSCRIBABLE)[number];
/** What an endpoint that asked for nothing receives (and every one registered before it could ask). */
export const DEFAULT_EVENTS: readonly Subscribable[] = ['response.accepted'];

export interface EndpointRegistered {
  type: typeof ENDPOINT_REGISTERED;
  at: string;
  workspace_id: string;
  endpoint_id: string;
  url: string;
  /** The endpoint this one replaces; it receives nothing more. */
  replaces: string | null;
  /** The Session events it asked for; absent on endpoints registered before it could ask (DEFAULT_EVENTS). */
  events?: Subscribable[];
}

export interface EndpointSubscribed {
  type: typeof ENDPOINT_SUBSCRIBED;
  at: string;
  endpoint_id: string;
  events: Subscribable[];
}

export interface EndpointVerified {
  type: typeof ENDPOINT_VERIFIED;
  at: string;
  endpoint_id: string;
  expires_at: string;
}

export interface SecretCreated {
  type: typeof SECRET_CREATED;
  at: string;
  workspace_id: string;
  kid: string;
  /** The secret (`whsec_…`); null in an older event, whose secret is sealed_by_initial. */
  secret: string | null;
  /** An older event's secret, sealed with data key `initial` (upcast.ts): opened only when it signs, so `initial` can go once `rekey` has sealed it again. */
  sealed_by_initial?: string;
  /** A rotation: the secret that was newest until now keeps signing until retire_at. */
  retires: { kid: string; retire_at: string } | null;
}

/** A secret sealed with data key `initial`, sealed again with the stream's data key (`rekey`): its value is the same. */
export interface SecretResealed {
  type: typeof SECRET_RESEALED;
  at: string;
  workspace_id: string;
  kid: string;
  secret: string;
}

export type WebhookEvent = EndpointRegistered | EndpointVerified | SecretCreated | SecretResealed | EndpointSubscribed;

/** The secrets are sealed; an event read without opening them (a projection's) has them null. */
export const webhookSealing = new SealedFields({
  [SECRET_CREATED]: ['secret'],
  [SECRET_RESEALED]: ['secret'],
} satisfies Partial<Record<WebhookEvent['type'], readonly string[]>>);

export const webhookStreamId = (workspaceId: string): string => `webhook-${workspaceId}`;
