"""events(): the workspace feed as an iterator that waits at its end, sync and async alike."""

from __future__ import annotations

import threading
from typing import Any

from conftest import refund_question, service
from person import answer_through_link

from svc_handoff import Client


def test_walks_the_feed_and_waits_at_its_end_for_the_next_event(client: Any) -> None:
    created = client.create_session(refund_question())
    answer_through_link(created["human_url"], "approve", {"amount": "5"})

    cursor = None
    for item in client.events(limit=5):
        if item.event["session_id"] == created["id"] and item.event["type"] == "response.accepted":
            cursor = item.cursor
            break
    assert cursor is not None

    # From there the feed is at its end: the next read is held until the Session changes.
    completing = threading.Timer(0.3, complete_elsewhere, (created["id"],))
    completing.start()
    item = next(item for item in client.events(after=cursor, wait_seconds=30) if item.event["session_id"] == created["id"])
    completing.join()
    assert (item.event["session_id"], item.event["type"]) == (created["id"], "session.completed")


def complete_elsewhere(session_id: str) -> None:
    """Completes the Session from another client, as another process of the agent would."""
    url, key = service()
    with Client(url, key) as other:
        other.complete(session_id)
