"""The Python client of the hosted human handoff service: ask a person, wait for the answer,
verify its receipt. `Client` (sync) and `AsyncClient` behave the same; see docs/python.md."""

from ._async_client import AsyncClient
from ._backoff import Backoff, Retry
from ._client import Client
from ._core import WAIT_SECONDS_MAX
from .errors import ClientError, ClientErrorCode, HandoffError, ServiceError
from .openapi import ErrorCode
from .receipts import verify_receipt
from .types import Answered, FeedItem, ReceiptClaims
from .webhooks import verify_webhook

__all__ = [
    "WAIT_SECONDS_MAX",
    "Answered",
    "AsyncClient",
    "Backoff",
    "Client",
    "ClientError",
    "ClientErrorCode",
    "ErrorCode",
    "FeedItem",
    "HandoffError",
    "ReceiptClaims",
    "Retry",
    "ServiceError",
    "verify_receipt",
    "verify_webhook",
]
