"""The client's calls against the live service, sync and async alike."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from conftest import refund_question
from person import answer_through_link

from svc_handoff import ClientError, ServiceError


def test_creates_waits_for_the_answer_and_verifies_its_receipt(client: Any) -> None:
    created = client.create_session(refund_question())
    assert created["id"].startswith("ses_") and created["revision"] == 1
    # The person answers while the client's read is held.
    person = threading.Timer(0.3, answer_through_link, (created["human_url"], "approve", {"amount": "20", "note": "Sorry."}))
    person.start()
    answered = client.wait_for_response(created["id"], timeout=30)
    person.join()
    assert answered.response["action_id"] == "approve"
    assert answered.response["data"] == {"amount": 20, "note": "Sorry."}
    assert answered.session["status"] == "responded"
    assert answered.etag == client.etag_of(created["id"])

    claims = client.verify_receipt(created["id"], answered.response)
    assert claims["workspace_id"] == "wks_operator"
    assert claims["session_id"] == created["id"]
    assert claims["summary"] == "Approve refund: Approve the refund for order 1042 (revision 1)"

    completed = client.complete(created["id"])
    assert completed["status"] == "completed"
    assert client.get_session(created["id"])["status"] == "completed"


def test_refuses_a_receipt_bound_to_another_answer(client: Any) -> None:
    created = client.create_session(refund_question())
    answer_through_link(created["human_url"], "approve", {"amount": "12.5"})
    response = client.wait_for_response(created["id"]).response
    with pytest.raises(ClientError) as changed:
        client.verify_receipt(created["id"], {**response, "data": {"amount": 125}})
    assert (changed.value.code, changed.value.reason) == ("RECEIPT_INVALID", "input_sha256_mismatch")
    with pytest.raises(ClientError) as other_audience:
        client.verify_receipt(created["id"], response, audience="wks_someone_else")
    assert (other_audience.value.code, other_audience.value.reason) == ("RECEIPT_INVALID", "aud_mismatch")
    forged = response["receipt"][:-4] + ("AAAA" if not response["receipt"].endswith("AAAA") else "BBBB")
    with pytest.raises(ClientError) as bad_signature:
        client.verify_receipt(created["id"], {**response, "receipt": forged})
    assert (bad_signature.value.code, bad_signature.value.reason) == ("RECEIPT_INVALID", "signature")


def test_publishes_with_if_match_and_refuses_a_stale_one(client: Any) -> None:
    created = client.create_session(refund_question())
    first_etag = client.etag_of(created["id"])
    published = client.publish(created["id"], refund_question("Approve the refund for order 1043"))
    assert published["revision"] == 2
    assert client.etag_of(created["id"]) != first_etag
    with pytest.raises(ServiceError) as stale:
        client.publish(created["id"], refund_question("Again"), if_match=first_etag)
    assert stale.value.status == 412 and stale.value.code == "SESSION_REVISION_CONFLICT"
    assert stale.value.request_id


def test_a_repeated_idempotency_key_is_recognised(client: Any) -> None:
    created = client.create_session(refund_question())
    etag = client.etag_of(created["id"])
    first = client.publish(created["id"], refund_question("Revision two"), if_match=etag, idempotency_key="key-1")
    again = client.publish(created["id"], refund_question("Revision two"), if_match=etag, idempotency_key="key-1")
    assert again == first
    assert client.get_session(created["id"])["revision"] == 2


def test_errors_carry_the_services_code(client: Any) -> None:
    with pytest.raises(ServiceError) as missing:
        client.get_session("ses_00000000000000000000000000")
    assert (missing.value.status, missing.value.code) == (404, "SESSION_NOT_FOUND")
    with pytest.raises(ServiceError) as invalid:
        client.create_session({"mode": "interactive", "title": "No actions", "source": {"kind": "svc_surface", "components": []}})
    assert invalid.value.code == "INVALID_SCHEMA"


def test_passes_notify_through_on_create(client: Any) -> None:
    created = client.create_session(refund_question(), notify={"email": ["approver@example.com"]})
    session = client.get_session(created["id"])
    assert [responder["address"] for responder in session.get("responders", [])] == ["approver@example.com"]


def test_a_display_session_takes_no_answer(client: Any) -> None:
    created = client.create_session({"mode": "display", "title": "FYI", "source": {"kind": "data", "data": {"note": "shipped"}}})
    with pytest.raises(ClientError) as none:
        client.wait_for_response(created["id"])
    assert none.value.code == "NO_RESPONSE_POSSIBLE"


def test_a_completed_unanswered_session_ends_the_wait(client: Any) -> None:
    created = client.create_session(refund_question())
    client.complete(created["id"])
    with pytest.raises(ClientError) as none:
        client.wait_for_response(created["id"])
    assert none.value.code == "NO_RESPONSE_POSSIBLE"


def test_the_wait_times_out(client: Any) -> None:
    created = client.create_session(refund_question())
    with pytest.raises(ClientError) as timed_out:
        client.wait_for_response(created["id"], timeout=1.5, wait_seconds=1)
    assert timed_out.value.code == "WAIT_TIMEOUT"
