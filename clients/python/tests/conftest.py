"""The service under test is started by the test that runs this suite (test/client/python.test.ts):
SVC_URL and SVC_API_KEY name it. `client` is each test's client, sync and async alike: the async
one is driven through an event loop of the test's own, so one test body covers both."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import pytest
from gateway import Gateway

from svc_handoff import AsyncClient, Backoff, Client, Retry

# Fast enough for a test; the waits themselves are never asserted on.
FAST = {"retry": Retry(attempts=4, backoff=Backoff(0.005, 0.02)), "poll": Backoff(0.005, 0.04)}


TOOLS = Path(__file__).resolve().parents[1] / "tools"


def load_tool(name: str) -> ModuleType:
    """One of clients/python/tools, imported from its file (the tools are scripts, not a package,
    importing their shared _generated.py as a script would: from their own folder)."""
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def service() -> tuple[str, str]:
    url, key = os.environ.get("SVC_URL"), os.environ.get("SVC_API_KEY")
    if not url or not key:
        raise RuntimeError("SVC_URL and SVC_API_KEY name the service under test: run these tests through test/client/python.test.ts")
    return url, key


class Synced:
    """An AsyncClient seen through sync calls: each coroutine run to its end on one loop, and its
    feed iterated step by step, so a test reads the same for both clients."""

    def __init__(self, client: AsyncClient, loop: asyncio.AbstractEventLoop) -> None:
        self._client = client
        self._loop = loop

    def events(self, **options: Any) -> Iterator[Any]:
        feed = self._client.events(**options)
        while True:
            try:
                yield self._loop.run_until_complete(feed.__anext__())
            except StopAsyncIteration:
                return

    def __getattr__(self, name: str) -> Callable[..., Any]:
        member = getattr(self._client, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            result = member(*args, **kwargs)
            return self._loop.run_until_complete(result) if asyncio.iscoroutine(result) else result

        return call


def open_client(kind: str, **options: Any) -> Iterator[Any]:
    url, key = service()
    url, key = options.pop("base_url", url), options.pop("api_key", key)
    settings = {**FAST, **options}
    if kind == "sync":
        with Client(url, key, **settings) as client:
            yield client
        return
    loop = asyncio.new_event_loop()
    client = AsyncClient(url, key, **settings)
    try:
        yield Synced(client, loop)
    finally:
        loop.run_until_complete(client.aclose())
        loop.close()


@pytest.fixture(params=["sync", "async"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def client(kind: str) -> Iterator[Any]:
    yield from open_client(kind)


@pytest.fixture
def make_client(kind: str) -> Iterator[Callable[..., Any]]:
    """Clients with options of the test's own, closed after it."""
    opened: list[Iterator[Any]] = []

    def make(**options: Any) -> Any:
        it = open_client(kind, **options)
        opened.append(it)
        return next(it)

    yield make
    for it in opened:
        for _ in it:
            pass


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    """The gateway double in front of the service: what reached the service is in `forwarded`."""
    opened = Gateway(service()[0])
    yield opened
    opened.close()


def refund_question(title: str = "Approve the refund for order 1042") -> dict[str, Any]:
    return {
        "mode": "interactive",
        "title": title,
        "source": {
            "kind": "svc_surface",
            "components": [
                {"type": "record", "label": "Order", "fields": {"order": "1042", "total": 49.9}},
                {"type": "field", "name": "amount", "label": "Refund amount", "schema": {"type": "number", "minimum": 0, "maximum": 49.9}, "required": True},
                {"type": "field", "name": "note", "label": "Note", "schema": {"type": "string", "maxLength": 200}},
            ],
        },
        "actions": [
            {"id": "approve", "label": "Approve refund", "intent": "approve"},
            {"id": "reject", "label": "Reject", "intent": "reject"},
        ],
    }
