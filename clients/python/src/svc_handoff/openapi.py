# Generated from docs/openapi.json by clients/python/tools/generate_types.py: do not edit by hand.
# Regenerate with `npm run openapi:write` (or that script) after the contract changes.
"""The contract's request and answer shapes, as TypedDicts."""

from __future__ import annotations

from typing import Any, Literal, Optional, TypedDict, Union


class ErrorEnvelope(TypedDict):
    error: ErrorEnvelopeError


class _ErrorEnvelopeErrorRequired(TypedDict):
    code: Literal['INVALID_SCHEMA', 'PAYLOAD_TOO_LARGE', 'UNAUTHORIZED', 'SESSION_NOT_FOUND', 'NOT_FOUND', 'INTERNAL', 'UNKNOWN_COMPONENT', 'SESSION_REVISION_CONFLICT', 'IDEMPOTENCY_CONFLICT', 'PRECONDITION_REQUIRED', 'SESSION_COMPLETED', 'ACTION_NOT_ALLOWED', 'ACTION_NOT_FOUND', 'VALIDATION_FAILED', 'RESPONSE_LIMIT_REACHED', 'SERVICE_UNAVAILABLE', 'RATE_LIMITED', 'TRIAL_UNAVAILABLE', 'SIGN_IN_UNAVAILABLE', 'WEBHOOK_INVALID_URL', 'WEBHOOK_VERIFICATION_FAILED', 'WEBHOOK_NOT_CONFIGURED', 'SIGN_IN_LINK_INVALID', 'KEY_LIMIT_REACHED', 'KEY_ALREADY_CREATED', 'TRIAL_NOT_FOUND', 'TRIAL_ALREADY_CLAIMED', 'CLIENT_REFERENCE_IN_USE']
    message: str
    request_id: str


class ErrorEnvelopeError(_ErrorEnvelopeErrorRequired, total=False):
    reason: str
    details: dict[str, str]


class NotifyPlan(TypedDict, total=False):
    """Whom to reach for this revision (interactive Sessions of owner and developer workspaces): each address gets mail with a link of its own; `slack` posts to the workspace's Slack webhook; one reminder per responder who has not answered after `remind_after_seconds`; each `escalate` step mails further addresses after its delay (docs/responders.md)."""

    email: list[str]
    slack: bool
    remind_after_seconds: int
    escalate: list[NotifyPlanEscalateItem]


class NotifyPlanEscalateItem(TypedDict):
    after_seconds: int
    email: list[str]


class Decision(TypedDict):
    """Several people decide this revision (interactive Sessions with notify.email): each emailed responder answers once, through their own link; it is approved when `required` of them chose an action of `count`, vetoed as soon as anyone chose an action of `veto`, whichever commits first (docs/decisions.md). `count` and `veto` name the revision's actions and share none; `required` is at most the number of people notify.email reaches."""

    required: int
    count: list[str]
    veto: list[str]


class _FieldSchemaStringRequired(TypedDict):
    type: Literal['string']


class FieldSchemaString(_FieldSchemaStringRequired, total=False):
    title: str
    description: str
    minLength: int
    maxLength: int
    enum: list[str]


class _FieldSchemaNumberRequired(TypedDict):
    type: Literal['number']


class FieldSchemaNumber(_FieldSchemaNumberRequired, total=False):
    title: str
    description: str
    minimum: float
    maximum: float
    exclusiveMinimum: float
    exclusiveMaximum: float


class _FieldSchemaIntegerRequired(TypedDict):
    type: Literal['integer']


class FieldSchemaInteger(_FieldSchemaIntegerRequired, total=False):
    title: str
    description: str
    minimum: float
    maximum: float
    exclusiveMinimum: float
    exclusiveMaximum: float


class _FieldSchemaBooleanRequired(TypedDict):
    type: Literal['boolean']


class FieldSchemaBoolean(_FieldSchemaBooleanRequired, total=False):
    title: str
    description: str


class _FieldSchemaArrayRequired(TypedDict):
    type: Literal['array']
    items: FieldSchemaArrayItems


class FieldSchemaArray(_FieldSchemaArrayRequired, total=False):
    title: str
    description: str
    minItems: int
    maxItems: int
    uniqueItems: Literal[True]


class _FieldSchemaArrayItemsRequired(TypedDict):
    type: Literal['string']
    enum: list[str]


class FieldSchemaArrayItems(_FieldSchemaArrayItemsRequired, total=False):
    title: str
    description: str


class ComponentHeading(TypedDict):
    type: Literal['heading']
    text: str


class ComponentText(TypedDict):
    type: Literal['text']
    text: str


class _ComponentRecordRequired(TypedDict):
    type: Literal['record']
    fields: dict[str, Union[str, float, bool, None]]


class ComponentRecord(_ComponentRecordRequired, total=False):
    label: str


class _ComponentFieldRequired(TypedDict):
    type: Literal['field']
    name: str
    label: str
    schema: FieldSchema


class ComponentField(_ComponentFieldRequired, total=False):
    description: str
    required: bool
    multiline: bool
    option_labels: dict[str, str]
    value: Union[str, float, bool, list[str]]


class _DisplayInteractionRequired(TypedDict):
    mode: Literal['display']
    title: str
    source: DisplayInteractionSource


class DisplayInteraction(_DisplayInteractionRequired, total=False):
    description: str


class DisplayInteractionSource(TypedDict):
    kind: Literal['data']
    data: dict[str, Union[list[dict[str, Union[str, float, bool, None]]], dict[str, Union[str, float, bool, None]], Union[str, float, bool, None]]]


class _InteractiveInteractionRequired(TypedDict):
    mode: Literal['interactive']
    title: str
    source: InteractiveInteractionSource
    actions: list[InteractiveInteractionActionsItem]


class InteractiveInteraction(_InteractiveInteractionRequired, total=False):
    description: str
    response_policy: Literal['first']


class InteractiveInteractionSource(TypedDict):
    kind: Literal['svc_surface']
    components: list[Component]


class _InteractiveInteractionActionsItemRequired(TypedDict):
    id: str
    label: str


class InteractiveInteractionActionsItem(_InteractiveInteractionActionsItemRequired, total=False):
    intent: Literal['submit', 'continue', 'approve', 'reject', 'request_change']


class _CreateSessionResponseRequired(TypedDict):
    id: str
    revision: int
    human_url: str
    link_expires_at: str


class CreateSessionResponse(_CreateSessionResponseRequired, total=False):
    client_reference_id: str


class _SessionResponseRequired(TypedDict):
    id: str
    revision: int
    interaction: Interaction
    link_expires_at: str


class SessionResponse(_SessionResponseRequired, total=False):
    """SessionResponse (display) or InteractiveSessionResponse (status, response_schema and responses present)."""

    client_reference_id: str
    status: Literal['active', 'responded', 'completed']
    response_schema: dict[str, Any]
    responses: list[SessionResponseResponsesItem]
    responders: list[SessionResponseRespondersItem]
    decision: SessionResponseDecision


class SessionResponseResponsesItem(TypedDict):
    event_id: str
    sequence: int
    revision: int
    action_id: str
    data: dict[str, Any]
    actor: SessionResponseResponsesItemActor
    accepted_at: str
    receipt: Union[str, None]


class _SessionResponseResponsesItemActorRequired(TypedDict):
    assurance: Literal['link_holder', 'owner', 'email_link', 'slack_channel', 'service']


class SessionResponseResponsesItemActor(_SessionResponseResponsesItemActorRequired, total=False):
    responder_id: str


class SessionResponseRespondersItem(TypedDict):
    id: str
    channel: Literal['email', 'slack']
    address: Union[str, None]
    state: Literal['pending', 'notified', 'failed', 'answered']
    notified_at: Union[str, None]
    reminded_at: Union[str, None]


class SessionResponseDecision(TypedDict):
    """Where the current revision's decision by several people stands (present only when the revision has a `decision`): docs/decisions.md."""

    required: int
    approvals: list[str]
    vetoed_by: Union[str, None]
    outcome: Optional[Literal['approved', 'vetoed', None]]
    resolved_at: Union[str, None]
    receipt: Union[str, None]


class SessionEventsResponse(TypedDict):
    id: str
    events: list[SessionEventsResponseEventsItem]


class _SessionEventsResponseEventsItemRequired(TypedDict):
    event_id: str
    sequence: int
    type: Literal['response.accepted', 'revision.published', 'session.completed', 'session.extended', 'session.expired', 'notification.sent', 'notification.failed', 'session.link_reissued', 'decision.resolved']
    revision: int
    actor: SessionEventsResponseEventsItemActor
    created_at: str


class SessionEventsResponseEventsItem(_SessionEventsResponseEventsItemRequired, total=False):
    responder_id: str
    kind: Literal['notify', 'reminder', 'escalation']
    reason: str
    outcome: Literal['approved', 'vetoed']
    responses: list[str]
    action_id: str
    data: dict[str, Any]
    receipt: Union[str, None]
    link_expires_at: str


class _SessionEventsResponseEventsItemActorRequired(TypedDict):
    assurance: Literal['link_holder', 'owner', 'email_link', 'slack_channel', 'service']


class SessionEventsResponseEventsItemActor(_SessionEventsResponseEventsItemActorRequired, total=False):
    responder_id: str


class SessionListResponse(TypedDict):
    """The workspace's Sessions after the cursor, newest first, each a summary (never its link); `data` is empty past the oldest."""

    data: list[SessionListResponseDataItem]
    next_cursor: str


class _SessionListResponseDataItemRequired(TypedDict):
    id: str
    mode: Literal['display', 'interactive']
    revision: int
    title: str
    created_at: str
    link_expires_at: str


class SessionListResponseDataItem(_SessionListResponseDataItemRequired, total=False):
    status: Literal['active', 'responded', 'completed']
    client_reference_id: str


class _ReissuedLinkResponseRequired(TypedDict):
    id: str
    revision: int
    interaction: Interaction
    link_expires_at: str
    human_url: str


class ReissuedLinkResponse(_ReissuedLinkResponseRequired, total=False):
    """The Session as GET /v1/sessions/{id} shows it, with its new human link: shown only here (the service keeps only its hash)."""

    client_reference_id: str
    status: Literal['active', 'responded', 'completed']
    response_schema: dict[str, Any]
    responses: list[ReissuedLinkResponseResponsesItem]
    responders: list[ReissuedLinkResponseRespondersItem]
    decision: ReissuedLinkResponseDecision


class ReissuedLinkResponseResponsesItem(TypedDict):
    event_id: str
    sequence: int
    revision: int
    action_id: str
    data: dict[str, Any]
    actor: ReissuedLinkResponseResponsesItemActor
    accepted_at: str
    receipt: Union[str, None]


class _ReissuedLinkResponseResponsesItemActorRequired(TypedDict):
    assurance: Literal['link_holder', 'owner', 'email_link', 'slack_channel', 'service']


class ReissuedLinkResponseResponsesItemActor(_ReissuedLinkResponseResponsesItemActorRequired, total=False):
    responder_id: str


class ReissuedLinkResponseRespondersItem(TypedDict):
    id: str
    channel: Literal['email', 'slack']
    address: Union[str, None]
    state: Literal['pending', 'notified', 'failed', 'answered']
    notified_at: Union[str, None]
    reminded_at: Union[str, None]


class ReissuedLinkResponseDecision(TypedDict):
    """Where the current revision's decision by several people stands (present only when the revision has a `decision`): docs/decisions.md."""

    required: int
    approvals: list[str]
    vetoed_by: Union[str, None]
    outcome: Optional[Literal['approved', 'vetoed', None]]
    resolved_at: Union[str, None]
    receipt: Union[str, None]


class SlackSettingResponse(TypedDict):
    configured: bool
    webhook_url_hint: Union[str, None]
    set_at: Union[str, None]


class EventFeedResponse(TypedDict):
    """The workspace's Session events after the cursor, in log order; `data` is empty at the end (and after a wait that saw nothing)."""

    data: list[EventFeedResponseDataItem]
    next_cursor: str


class _EventFeedResponseDataItemRequired(TypedDict):
    session_id: str
    event_id: str
    sequence: int
    type: Literal['response.accepted', 'revision.published', 'session.completed', 'session.extended', 'session.expired', 'notification.sent', 'notification.failed', 'session.link_reissued', 'decision.resolved']
    revision: int
    actor: EventFeedResponseDataItemActor
    created_at: str


class EventFeedResponseDataItem(_EventFeedResponseDataItemRequired, total=False):
    responder_id: str
    kind: Literal['notify', 'reminder', 'escalation']
    reason: str
    outcome: Literal['approved', 'vetoed']
    responses: list[str]
    action_id: str
    data: dict[str, Any]
    receipt: Union[str, None]
    link_expires_at: str


class _EventFeedResponseDataItemActorRequired(TypedDict):
    assurance: Literal['link_holder', 'owner', 'email_link', 'slack_channel', 'service']


class EventFeedResponseDataItemActor(_EventFeedResponseDataItemActorRequired, total=False):
    responder_id: str


class MeResponse(TypedDict):
    workspace_id: str
    credential: Literal['owner', 'developer']


class WebhookEndpoint(TypedDict):
    id: str
    url: str
    status: Literal['pending', 'verified']
    created_at: str
    verified_at: Union[str, None]
    verification_expires_at: Union[str, None]
    events: list[Literal['response.accepted', 'session.expired', 'decision.resolved']]


class WebhookRegisterResponse(TypedDict):
    endpoint: WebhookEndpoint
    signing_secret: Union[WebhookRegisterResponseSigningSecret1, None]


class WebhookRegisterResponseSigningSecret1(TypedDict):
    """Shown once."""

    kid: str
    secret: str


class WebhookResponse(TypedDict):
    endpoint: Union[WebhookEndpoint, None]
    signing_secrets: list[WebhookResponseSigningSecretsItem]
    deliveries: WebhookResponseDeliveries


class WebhookResponseSigningSecretsItem(TypedDict):
    kid: str
    active: bool
    retire_at: Union[str, None]


class WebhookResponseDeliveries(TypedDict):
    pending: int
    failed: int
    delivered: int
    oldest_pending_age_seconds: Union[int, None]


class WebhookVerifyResponse(TypedDict):
    endpoint: WebhookEndpoint


class WebhookRotateResponse(TypedDict):
    signing_secret: WebhookRotateResponseSigningSecret
    previous: Union[WebhookRotateResponsePrevious1, None]


class WebhookRotateResponseSigningSecret(TypedDict):
    """Shown once."""

    kid: str
    secret: str


class WebhookRotateResponsePrevious1(TypedDict):
    kid: str
    retire_at: str


class DeliveriesResponse(TypedDict):
    id: str
    deliveries: list[DeliveriesResponseDeliveriesItem]


class DeliveriesResponseDeliveriesItem(TypedDict):
    delivery_id: str
    event_id: str
    kind: Literal['accepted', 'expired', 'resolved', 'redelivery']
    status: Literal['pending', 'delivered', 'failed']
    endpoint_id: str
    next_attempt_at: Union[str, None]
    deadline_at: str
    created_at: str
    finished_at: Union[str, None]
    last_outcome: Union[Literal['started', 'delivered', 'server_error', 'rate_limited', 'timeout', 'connection', 'dns', 'signing_unavailable', 'request_timeout', 'too_early', 'rejected', 'redirect', 'egress_refused', 'endpoint_unavailable', 'exhausted'], None]
    attempts: list[DeliveriesResponseDeliveriesItemAttemptsItem]


class DeliveriesResponseDeliveriesItemAttemptsItem(TypedDict):
    attempt: int
    started_at: str
    finished_at: Union[str, None]
    outcome: Literal['started', 'delivered', 'server_error', 'rate_limited', 'timeout', 'connection', 'dns', 'signing_unavailable', 'request_timeout', 'too_early', 'rejected', 'redirect', 'egress_refused', 'endpoint_unavailable', 'exhausted']
    http_status: Union[int, None]


class _TrialCreateSessionResponseRequired(TypedDict):
    id: str
    revision: int
    human_url: str
    workspace_id: str
    action_expires_at: str
    result_available_until: str
    trial_expires_at: str


class TrialCreateSessionResponse(_TrialCreateSessionResponseRequired, total=False):
    management_credential: str


class _TrialSessionResponseRequired(TypedDict):
    id: str
    revision: int
    interaction: Interaction
    link_expires_at: str
    trial: TrialSessionResponseTrial


class TrialSessionResponse(_TrialSessionResponseRequired, total=False):
    client_reference_id: str
    status: Literal['active', 'responded', 'completed']
    response_schema: dict[str, Any]
    responses: list[TrialSessionResponseResponsesItem]
    responders: list[TrialSessionResponseRespondersItem]
    decision: TrialSessionResponseDecision


class TrialSessionResponseResponsesItem(TypedDict):
    event_id: str
    sequence: int
    revision: int
    action_id: str
    data: dict[str, Any]
    actor: TrialSessionResponseResponsesItemActor
    accepted_at: str
    receipt: Union[str, None]


class _TrialSessionResponseResponsesItemActorRequired(TypedDict):
    assurance: Literal['link_holder', 'owner', 'email_link', 'slack_channel', 'service']


class TrialSessionResponseResponsesItemActor(_TrialSessionResponseResponsesItemActorRequired, total=False):
    responder_id: str


class TrialSessionResponseRespondersItem(TypedDict):
    id: str
    channel: Literal['email', 'slack']
    address: Union[str, None]
    state: Literal['pending', 'notified', 'failed', 'answered']
    notified_at: Union[str, None]
    reminded_at: Union[str, None]


class TrialSessionResponseDecision(TypedDict):
    """Where the current revision's decision by several people stands (present only when the revision has a `decision`): docs/decisions.md."""

    required: int
    approvals: list[str]
    vetoed_by: Union[str, None]
    outcome: Optional[Literal['approved', 'vetoed', None]]
    resolved_at: Union[str, None]
    receipt: Union[str, None]


class TrialSessionResponseTrial(TypedDict):
    workspace_id: str
    action_expires_at: str
    result_available_until: str


class WorkspaceResponse(TypedDict):
    workspace_id: str
    display_name: Union[str, None]
    updated_at: Union[str, None]


class EmailLinkAccepted(TypedDict):
    status: Literal['accepted']


class WebhookDelivery(TypedDict):
    """An accepted response. Every delivery of one Event (retries, redeliveries) sends the same bytes."""

    type: Literal['response.accepted']
    event_id: str
    session_id: str
    sequence: int
    revision: int
    action_id: str
    data: dict[str, Any]
    accepted_at: str
    receipt: Union[str, None]


class SessionExpiredDelivery(TypedDict):
    """A Session's link lapsed with its current revision unanswered. Sent only to an endpoint whose `events` lists session.expired."""

    type: Literal['session.expired']
    event_id: str
    session_id: str
    sequence: int
    revision: int
    link_expires_at: str
    expired_at: str


class DecisionResolvedDelivery(TypedDict):
    """A decision by several people resolved (docs/decisions.md). Sent only to an endpoint whose `events` lists decision.resolved."""

    type: Literal['decision.resolved']
    event_id: str
    session_id: str
    sequence: int
    revision: int
    outcome: Literal['approved', 'vetoed']
    responses: list[str]
    resolved_at: str
    receipt: Union[str, None]


class WebhookChallenge(TypedDict):
    """Sent by POST /v1/webhook/verify: the endpoint proves it is the workspace's by echoing `challenge`."""

    type: Literal['svc.webhook.verification']
    challenge: str


class WebhookChallengeAnswer(TypedDict):
    """The endpoint's answer to a challenge: JSON of at most 4096 bytes holding the same challenge."""

    challenge: str


class _CreateSessionRequestRequired(TypedDict):
    interaction: Interaction


class CreateSessionRequest(_CreateSessionRequestRequired, total=False):
    notify: NotifyPlan
    decision: Decision
    client_reference_id: str


class _PublishRevisionRequestRequired(TypedDict):
    interaction: PublishedInteraction


class PublishRevisionRequest(_PublishRevisionRequestRequired, total=False):
    notify: NotifyPlan
    decision: Decision


class ExtendSessionRequest(TypedDict):
    link_expires_at: str


class SetSlackWebhookRequest(TypedDict):
    webhook_url: str


class _RegisterWebhookRequestRequired(TypedDict):
    url: str


class RegisterWebhookRequest(_RegisterWebhookRequestRequired, total=False):
    events: list[Literal['response.accepted', 'session.expired', 'decision.resolved']]


class _CreateTrialSessionRequestRequired(TypedDict):
    interaction: PublishedInteraction


class CreateTrialSessionRequest(_CreateTrialSessionRequestRequired, total=False):
    notify: NotifyPlan
    decision: Decision


class ReceiptKeysResponse(TypedDict):
    """The active receipt signing key and every retained verification key (a JWK Set)."""

    keys: list[ReceiptKeysResponseKeysItem]


class ReceiptKeysResponseKeysItem(TypedDict):
    kty: Literal['OKP']
    crv: Literal['Ed25519']
    x: str
    kid: str
    alg: Literal['EdDSA']
    use: Literal['sig']


class SetWorkspaceRequest(TypedDict):
    display_name: str


class RequestSignInLinkRequest(TypedDict):
    email: str


LogConsistencyResponse = TypedDict('LogConsistencyResponse', {
    'from': "int",
    'to': "int",
    'proof': "list[str]",
})


ErrorCode = Literal['INVALID_SCHEMA', 'PAYLOAD_TOO_LARGE', 'UNAUTHORIZED', 'SESSION_NOT_FOUND', 'NOT_FOUND', 'INTERNAL', 'UNKNOWN_COMPONENT', 'SESSION_REVISION_CONFLICT', 'IDEMPOTENCY_CONFLICT', 'PRECONDITION_REQUIRED', 'SESSION_COMPLETED', 'ACTION_NOT_ALLOWED', 'ACTION_NOT_FOUND', 'VALIDATION_FAILED', 'RESPONSE_LIMIT_REACHED', 'SERVICE_UNAVAILABLE', 'RATE_LIMITED', 'TRIAL_UNAVAILABLE', 'SIGN_IN_UNAVAILABLE', 'WEBHOOK_INVALID_URL', 'WEBHOOK_VERIFICATION_FAILED', 'WEBHOOK_NOT_CONFIGURED', 'SIGN_IN_LINK_INVALID', 'KEY_LIMIT_REACHED', 'KEY_ALREADY_CREATED', 'TRIAL_NOT_FOUND', 'TRIAL_ALREADY_CLAIMED', 'CLIENT_REFERENCE_IN_USE']


FieldSchema = Union[FieldSchemaString, FieldSchemaNumber, FieldSchemaInteger, FieldSchemaBoolean, FieldSchemaArray]


Component = Union[ComponentHeading, ComponentText, ComponentRecord, ComponentField]


Interaction = Union[DisplayInteraction, InteractiveInteraction]


PublishedInteraction = InteractiveInteraction


HealthUnavailable = dict[str, Any]


PostMcpMessageRequest = dict[str, Any]
