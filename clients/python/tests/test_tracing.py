"""The caller's trace reaches the service: each request made in an OpenTelemetry span carries it as
a W3C traceparent (what the service joins its spans to); outside a span, or without OpenTelemetry
installed, none is sent. The gateway double sees what reached the service."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from contextlib import AbstractContextManager
from typing import Any, Callable

from conftest import refund_question, service
from gateway import Gateway
from opentelemetry import trace


def agent_span() -> tuple[AbstractContextManager[trace.Span], trace.SpanContext]:
    """A sampled span of the agent's, made current as an instrumented agent's would be (through the
    API: the SDK is not in the tests' index)."""
    context = trace.SpanContext(random.getrandbits(128), random.getrandbits(64), is_remote=False, trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED), trace_state=trace.TraceState([("agent", "refunds")]))
    return trace.use_span(trace.NonRecordingSpan(context)), context


def traceparents(gateway: Gateway) -> list[str | None]:
    return [headers.get("traceparent") for _method, _path, headers, _body in gateway.forwarded]


def test_each_request_made_in_a_span_carries_that_span_as_its_traceparent_and_tracestate(make_client: Callable[..., Any], gateway: Gateway) -> None:
    client = make_client(base_url=gateway.url)
    span, context = agent_span()
    with span:
        created = client.create_session(refund_question())
        client.get_session(created["id"])
    # Sampled: the service records its spans of these requests under the caller's.
    expected = f"00-{context.trace_id:032x}-{context.span_id:016x}-01"
    assert traceparents(gateway) == [expected, expected]
    assert [headers.get("tracestate") for _method, _path, headers, _body in gateway.forwarded] == ["agent=refunds", "agent=refunds"]


def test_a_request_made_outside_any_span_carries_no_traceparent(make_client: Callable[..., Any], gateway: Gateway) -> None:
    client = make_client(base_url=gateway.url)
    span, _context = agent_span()
    with span:
        client.me()
    client.me()
    assert traceparents(gateway)[0] is not None
    assert traceparents(gateway)[1] is None


def test_without_opentelemetry_installed_the_client_works_and_sends_no_traceparent(gateway: Gateway) -> None:
    # OpenTelemetry made unimportable in a fresh interpreter, as where the otel extra is not installed.
    program = (
        "import sys; sys.modules['opentelemetry'] = None\n"
        "from svc_handoff import Client\n"
        "with Client(sys.argv[1], sys.argv[2]) as client: print(client.me()['workspace_id'])\n"
    )
    done = subprocess.run([sys.executable, "-c", program, gateway.url, service()[1]], env=os.environ, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("wks_")
    assert traceparents(gateway) == [None]
