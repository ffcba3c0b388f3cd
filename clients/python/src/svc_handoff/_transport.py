"""One try of a call over httpx, shared by the sync and async clients up to the await."""

from __future__ import annotations

from typing import Any

import httpx

from ._steps import Call, Outcome, classify, maybe_sent, not_sent
from ._tracing import add_trace

# Held reads are asked to last up to this many seconds beyond the hold before the read gives up.
HOLD_MARGIN_SECONDS = 15.0
USER_AGENT = "svc-handoff-python"


def request_args(base_url: str, api_key: str, call: Call, timeout: float) -> dict[str, Any]:
    headers = {"accept": "application/json", "user-agent": USER_AGENT}
    if call.authorized:
        headers["authorization"] = f"Bearer {api_key}"
        # The caller's span, to the service only (as the key: the receipt key set may be elsewhere).
        add_trace(headers)
    if call.body is not None:
        headers["content-type"] = "application/json"
    headers.update(call.headers)
    read = timeout if call.hold is None else call.hold + HOLD_MARGIN_SECONDS
    return {
        "method": call.method,
        "url": call.url or f"{base_url}{call.path}",
        "headers": headers,
        "content": call.body,
        "timeout": httpx.Timeout(timeout, read=read),
    }


def outcome_of_answer(call: Call, response: httpx.Response) -> Outcome:
    return classify(call, response.status_code, response.headers, response.content)


def outcome_of_error(call: Call, base_url: str, error: httpx.TransportError) -> Outcome:
    """A connection never made sent nothing; any other transport failure may have sent the request."""
    if isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout)):
        return not_sent(call, base_url, error)
    return maybe_sent(call, error)
