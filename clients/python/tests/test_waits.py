"""How a wait decides, on what it read (pure: the service's clock cannot be moved from here)."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

from svc_handoff import ClientError
from svc_handoff._core import Known, answer_of, held_for


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat().replace("+00:00", "Z")


def test_a_read_after_the_links_expiry_that_finds_no_answer_ends_the_wait() -> None:
    now = time.time()
    created = Known('"1.0"', None, iso(now - 1))
    with pytest.raises(ClientError) as expired:
        answer_of("ses_x", created, now)
    assert expired.value.code == "LINK_EXPIRED"
    assert answer_of("ses_x", Known('"1.0"', None, iso(now + 60)), now) is None


def test_an_answer_accepted_before_the_expiry_is_still_returned() -> None:
    now = time.time()
    response = {"revision": 1, "receipt": "a.b.c"}
    session = {"id": "ses_x", "status": "responded", "revision": 1, "responses": [response]}
    answered = answer_of("ses_x", Known('"1.1"', session, iso(now - 1)), now)  # type: ignore[arg-type]
    assert answered is not None and answered.response is response


def test_a_held_read_asks_no_longer_than_the_cap_or_what_remains() -> None:
    assert held_for(None, None) == 55
    assert held_for(600, None) == 55
    assert held_for(10, None) == 10
    assert held_for(None, 3.2) == 4
    assert held_for(None, 0.1) == 1
