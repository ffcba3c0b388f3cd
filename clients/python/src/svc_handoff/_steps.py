"""One call to the service, as plain data, and what a try of it came to.

The client's logic (retries, waits, the feed, receipts) is written once, as generators that yield
steps (`Try` a request, `Sleep`, `Emit` a feed item) and receive what each came to; the sync and
the async client each run those generators with their own httpx client and sleep. So the two
behave the same by construction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Generator, Mapping, Optional, TypeVar, Union

from .errors import ClientError, HandoffError, is_envelope, service_error


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    expect: tuple[int, ...]
    # Safe to send again when the outcome is unknown: reads, and writes the service recognises when repeated.
    repeatable: bool
    # Serialized once: every retry sends the same bytes.
    body: Optional[bytes] = None
    headers: Mapping[str, str] = field(default_factory=dict)
    # Seconds the service is asked to hold the request (Prefer: wait): the read timeout allows for it.
    hold: Optional[int] = None
    # Sent with the API key; false for what anyone may read (the receipt key set, maybe on another host).
    authorized: bool = True
    # An absolute URL instead of the base URL and path.
    url: Optional[str] = None


def json_body(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True)
class Reply:
    status: int
    # Looked up by lower-case name (httpx.Headers looks up in any case).
    headers: Mapping[str, str]
    # The parsed JSON body; None when the answer has none (202, 304).
    body: Any


@dataclass(frozen=True)
class Failed:
    """A refusal or a failure to report at once."""

    error: HandoffError


@dataclass(frozen=True)
class Unknown:
    """Nobody knows whether the request took effect: retried when the call is repeatable."""

    error: ClientError


Outcome = Union[Reply, Failed, Unknown]


@dataclass(frozen=True)
class Try:
    call: Call


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class Emit:
    item: Any


Step = Union[Try, Sleep, Emit]
T = TypeVar("T")
# A piece of the client's logic: yields steps, is sent what each came to, returns its result.
Plan = Generator[Step, Any, T]


def classify(call: Call, status: int, headers: Mapping[str, str], content: bytes) -> Outcome:
    """What an answer means for the call: the reply, a refusal, or an unknown outcome (a gateway's 5xx page)."""
    text = content.decode("utf-8", errors="replace")
    parsed: Any = None
    parses = False
    if "json" in headers.get("content-type", "") and text != "":
        try:
            parsed, parses = json.loads(text), True
        except ValueError:
            pass
    where = f"{call.method} {call.url or call.path}"
    if status in call.expect:
        if text != "" and not parses:
            return Failed(ClientError("UNEXPECTED_RESPONSE", f"{where} answered {status} with a body that is not JSON.", status=status))
        return Reply(status, headers, parsed)
    if is_envelope(parsed):
        return Failed(service_error(status, parsed))
    if status >= 500:
        return Unknown(ClientError("OUTCOME_UNKNOWN", f"{where} answered {status} without the service's error envelope (a gateway's answer).", status=status))
    return Failed(ClientError("UNEXPECTED_RESPONSE", f"{where} answered {status} without the service's error envelope.", status=status))


def not_sent(call: Call, base_url: str, error: Exception) -> Failed:
    failed = ClientError("CONNECTION_FAILED", f"Could not connect to {call.url or base_url} ({type(error).__name__}: {error}); nothing was sent.")
    failed.__cause__ = error
    return Failed(failed)


def maybe_sent(call: Call, error: Exception) -> Unknown:
    unknown = ClientError("OUTCOME_UNKNOWN", f"The connection failed after {call.method} {call.url or call.path} may have been sent ({type(error).__name__}).")
    unknown.__cause__ = error
    return Unknown(unknown)
