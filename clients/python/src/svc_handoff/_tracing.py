"""The caller's trace, carried to the service: a W3C `traceparent` (and its `tracestate`) when the
caller has an active span in OpenTelemetry's API. The API is optional (the `otel` extra): without
it installed, or outside any span, nothing is added."""

from __future__ import annotations

from typing import Any, MutableMapping, Optional

_propagator: Optional[Any]
try:
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
except ImportError:
    _propagator = None
else:
    # The W3C propagator itself rather than the global one, so the header is sent whether or not
    # the caller configured propagators (as the TypeScript client does).
    _propagator = TraceContextTextMapPropagator()


def add_trace(headers: MutableMapping[str, str]) -> None:
    """Adds the current context's span to a request about to leave; nothing without a valid one."""
    if _propagator is not None:
        _propagator.inject(headers)
