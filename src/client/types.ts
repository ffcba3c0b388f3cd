import type { components, paths, webhooks } from './openapi.js';

/** Names for the contract's shapes (src/client/openapi.ts is generated from docs/openapi.json). */

type Schemas = components['schemas'];

export type ErrorEnvelope = Schemas['ErrorEnvelope'];
/** Every error code the service answers with. */
export type ErrorCode = ErrorEnvelope['error']['code'];

/** What a person is shown: a display interaction, or an interactive one, told by `mode`. */
export type Interaction = Schemas['Interaction'];

export type Component = Schemas['Component'];
export type FieldSchema = Schemas['FieldSchema'];
export type CreatedSession = Schemas['CreateSessionResponse'];
/** Whom the service reaches for a revision, with reminders and escalations (docs/responders.md). */
export type NotifyPlan = Schemas['NotifyPlan'];
export type Responder = NonNullable<Schemas['SessionResponse']['responders']>[number];
/** A display Session, or an interactive one (then `status`, `response_schema` and `responses` are present). */
export type Session = Omit<Schemas['SessionResponse'], 'interaction'> & { interaction: Interaction };
export type InteractiveSession = Session & Required<Pick<Session, 'status' | 'response_schema' | 'responses'>>;
/** Where a revision several people decide stands (docs/decisions.md); its outcome and receipt are null until resolved. */
export type SessionDecision = NonNullable<Schemas['SessionResponse']['decision']>;
/** What create and publish take as `decision`. */
export type DecisionRule = Schemas['Decision'];
/** One response the service accepted from the person, with its receipt. */
export type AcceptedResponse = InteractiveSession['responses'][number];

/** The workspace an owner credential acts in (the audience of its receipts), and its kind. */
export type Me = Schemas['MeResponse'];

export type SessionEvents = Schemas['SessionEventsResponse'];
export type SessionEvent = SessionEvents['events'][number];
/** A page of the workspace event feed (GET /v1/events). */
export type FeedPage = Schemas['EventFeedResponse'];
/** One event of the feed: a Session's Event with its session_id. */
export type FeedEvent = FeedPage['data'][number];
export type Deliveries = Schemas['DeliveriesResponse'];
/** A page of the workspace's Sessions (GET /v1/sessions), newest first. */
export type SessionList = Schemas['SessionListResponse'];
/** One Session as the list shows it: never its link. */
export type SessionSummary = SessionList['data'][number];
/** The Session with its new human link (POST /v1/sessions/{id}/link): the only answer that shows it. */
export type ReissuedLink = Omit<Schemas['ReissuedLinkResponse'], 'interaction'> & { interaction: Interaction };

export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookRegistration = Schemas['WebhookRegisterResponse'];
export type WebhookOverview = Schemas['WebhookResponse'];
export type WebhookEndpointVerified = Schemas['WebhookVerifyResponse'];
export type WebhookRotation = Schemas['WebhookRotateResponse'];
/** The workspace's Slack webhook: whether it has one, and a hint of its URL (never the whole). */
export type SlackSetting = Schemas['SlackSettingResponse'];

export type ReceiptKeySet = paths['/.well-known/svc-receipt-keys.json']['get']['responses'][200]['content']['application/json'];

/**
 * The claims a decision receipt signs (docs/receipts.md). The receipt is signed by the service, so
 * the contract document, which describes requests and answers, does not list them.
 */
export interface ReceiptClaims {
  iss: string;
  aud: string;
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  accepted_at: string;
  workspace_id: string;
  session_id: string;
  event_id: string;
  step_id: string;
  revision: number;
  revision_sha256: string;
  action_id: string;
  action_label: string;
  summary: string;
  input_sha256: string;
  /**
   * `email_link`: through a responder's own emailed link; `slack_channel`: through the link posted to
   * the workspace's Slack channel; `sub` is then the workspace-scoped responder id.
   */
  assurance: 'link_holder' | 'email_link' | 'slack_channel';
  return_binding: ReturnBinding | null;
}

/** How an accepted result reaches the agent; trials have no return channel (null). */
export interface ReturnBinding {
  /** `webhook` when a delivery job was queued with the acceptance, else `poll` (GET .../events). */
  channel: 'poll' | 'webhook';
  session_id: string;
  event_id: string;
}

/** The body of a request the service sends to a webhook endpoint, as the contract's `webhooks` section declares it. */
type WebhookBody<Name extends keyof webhooks> = webhooks[Name]['post']['requestBody']['content']['application/json'];

/** The body of a `response.accepted` webhook; identical on every delivery of one Event. */
export type WebhookDelivery = WebhookBody<'response.accepted'>;

/** The body of the challenge POST /v1/webhook/verify sends; answer 2xx with `{challenge}`. */
export type WebhookChallenge = WebhookBody<'svc.webhook.verification'>;

export type WebhookPayload = WebhookDelivery | WebhookChallenge;

/**
 * The claims a resolution receipt signs (docs/decisions.md): a decision by several people, approved
 * or vetoed, and the receipts of the answers that decided it, each bound by its hash.
 */
export interface ResolutionClaims {
  iss: string;
  aud: string;
  /** The step decided: `<session id>/r<revision>`. */
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  resolved_at: string;
  workspace_id: string;
  session_id: string;
  /** The decision.resolved Event. */
  event_id: string;
  step_id: string;
  revision: number;
  revision_sha256: string;
  outcome: 'approved' | 'vetoed';
  /** How many counted answers approve. */
  required: number;
  summary: string;
  /** The deciding answers in the order committed: the `required` approvals, or the veto. */
  responses: DecidingResponse[];
}

/** One deciding answer as a resolution receipt binds it. */
export interface DecidingResponse {
  event_id: string;
  /** The responder's id: the `sub` of the answer's own receipt. */
  sub: string;
  action_id: string;
  /** SHA-256 (hex) of the answer's receipt, the compact JWS as ASCII. */
  receipt_sha256: string;
}
