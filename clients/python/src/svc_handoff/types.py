"""Names for the contract's shapes (openapi.py is generated from docs/openapi.json), and the
client's own results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional, TypedDict, Union

from .openapi import (
    Component,
    CreateSessionResponse,
    DeliveriesResponse,
    EventFeedResponse,
    EventFeedResponseDataItem,
    FieldSchema,
    Interaction,
    MeResponse,
    NotifyPlan,
    ReceiptKeysResponse,
    SessionEventsResponse,
    SessionResponse,
    SessionResponseResponsesItem,
    WebhookChallenge,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookRegisterResponse,
    WebhookResponse,
    WebhookRotateResponse,
    WebhookVerifyResponse,
)

CreatedSession = CreateSessionResponse
# A display Session, or an interactive one (then status, response_schema and responses are present).
Session = SessionResponse
# One response the service accepted from the person, with its receipt.
AcceptedResponse = SessionResponseResponsesItem
Me = MeResponse
SessionEvents = SessionEventsResponse
FeedPage = EventFeedResponse
FeedEvent = EventFeedResponseDataItem
Deliveries = DeliveriesResponse
WebhookRegistration = WebhookRegisterResponse
WebhookOverview = WebhookResponse
WebhookEndpointVerified = WebhookVerifyResponse
WebhookRotation = WebhookRotateResponse
ReceiptKeySet = ReceiptKeysResponse
WebhookPayload = Union[WebhookDelivery, WebhookChallenge]


class ReturnBinding(TypedDict):
    """How an accepted result reaches the agent: `webhook` when a delivery was queued with the acceptance, else `poll`."""

    channel: Literal["poll", "webhook"]
    session_id: str
    event_id: str


class ReceiptClaims(TypedDict):
    """The claims a decision receipt signs (docs/receipts.md); the contract describes requests and answers, not these."""

    iss: str
    aud: str
    sub: str
    jti: str
    iat: int
    exp: int
    accepted_at: str
    workspace_id: str
    session_id: str
    event_id: str
    step_id: str
    revision: int
    revision_sha256: str
    action_id: str
    action_label: str
    summary: str
    input_sha256: str
    assurance: Literal["link_holder", "email_link"]
    return_binding: Optional[ReturnBinding]


@dataclass(frozen=True)
class Answered:
    """The answer to the Session's current revision."""

    session: Session
    response: AcceptedResponse
    # The response's decision receipt (compact JWS); verify it with verify_receipt.
    receipt: Optional[str]
    etag: str


@dataclass(frozen=True)
class FeedItem:
    """One event of the workspace feed, and the cursor to resume after it: after this event when it
    ended its page, else before its page (a reader resuming there may see the rest of that page
    again: at least once, never lost)."""

    event: FeedEvent
    cursor: str


__all__ = [
    "AcceptedResponse",
    "Answered",
    "Component",
    "CreatedSession",
    "Deliveries",
    "FeedEvent",
    "FeedItem",
    "FeedPage",
    "FieldSchema",
    "Interaction",
    "Me",
    "NotifyPlan",
    "ReceiptClaims",
    "ReceiptKeySet",
    "ReturnBinding",
    "Session",
    "SessionEvents",
    "WebhookChallenge",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookEndpointVerified",
    "WebhookOverview",
    "WebhookPayload",
    "WebhookRegistration",
    "WebhookRotation",
]
