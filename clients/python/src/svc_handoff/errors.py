"""Every failure the client reports is a HandoffError: branch on `code`, never on the message.

`ServiceError` is the service's own refusal (its error envelope); `ClientError` is what the client
found itself. Both carry `code`, `reason` (a stable refinement of the code, or None), `request_id`
(the service's id of the request, to quote when asking for help) and `status` (the HTTP status, or
None when no answer came).
"""

from __future__ import annotations

from typing import Literal, Mapping, Optional, Union, cast

from .openapi import ErrorCode, ErrorEnvelope

ClientErrorCode = Literal[
    # No answer says whether the request took effect (a 5xx without the envelope, or the connection
    # failed after the request may have left), and retries ran out or were not safe.
    "OUTCOME_UNKNOWN",
    # No connection could be made: nothing was sent.
    "CONNECTION_FAILED",
    # An answer the contract does not describe (a non-JSON 4xx, a 2xx that is not JSON).
    "UNEXPECTED_RESPONSE",
    # wait_for_response reached its timeout with no answer.
    "WAIT_TIMEOUT",
    # wait_for_response can never return: a display Session, or completed before its revision was answered.
    "NO_RESPONSE_POSSIBLE",
    # A read at or after the link's expiry found the current revision unanswered.
    "LINK_EXPIRED",
    # The receipt's signature, issuer, audience or expiry failed, or a claim differs from its response.
    "RECEIPT_INVALID",
    # The receipt key set could not be fetched.
    "RECEIPT_KEYS_UNAVAILABLE",
    # A webhook's headers, timestamp or signature failed verification.
    "WEBHOOK_INVALID",
]


class HandoffError(Exception):
    code: Union[ErrorCode, ClientErrorCode]
    status: Optional[int]
    reason: Optional[str]
    request_id: Optional[str]

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ServiceError(HandoffError):
    """The service refused the request: its status and error envelope. `details`: what the refusal
    names besides its code (CLIENT_REFERENCE_IN_USE: `session_id`); empty when nothing."""

    code: ErrorCode
    request_id: str
    details: Mapping[str, str]

    def __init__(self, status: int, envelope: ErrorEnvelope) -> None:
        error = envelope["error"]
        super().__init__(error["message"])
        self.status = status
        self.code = error["code"]
        self.reason = error.get("reason")
        self.request_id = error["request_id"]
        self.details = error.get("details", {})

    def __repr__(self) -> str:
        return f"ServiceError({self.status}, {self.code!r}, reason={self.reason!r}, request_id={self.request_id!r})"


class ClientError(HandoffError):
    code: ClientErrorCode

    def __init__(self, code: ClientErrorCode, message: str, reason: Optional[str] = None, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.status = status
        self.request_id = None

    def __repr__(self) -> str:
        return f"ClientError({self.code!r}, reason={self.reason!r}, status={self.status!r})"


def is_envelope(value: object) -> bool:
    error = value.get("error") if isinstance(value, dict) else None
    return isinstance(error, dict) and isinstance(error.get("code"), str) and isinstance(error.get("request_id"), str)


def service_error(status: int, envelope: object) -> ServiceError:
    return ServiceError(status, cast(ErrorEnvelope, envelope))
