"""Retries happen only when the outcome is unknown, and then with the same bytes, key and If-Match."""

from __future__ import annotations

import json
import socket
import uuid
from typing import Any, Callable

import httpx
import pytest
from conftest import refund_question, service
from gateway import Gateway
from person import answer_through_link

from svc_handoff import ClientError, ServiceError


def test_a_change_whose_answer_was_lost_is_repeated_with_the_same_key_and_if_match(make_client: Callable[..., Any], gateway: Gateway) -> None:
    client = make_client(base_url=gateway.url, issuer=service()[0])
    created = client.create_session(refund_question())
    gateway.faults = ["page_after"]
    published = client.publish(created["id"], refund_question("Approve the refund for order 1043"))
    patches = [headers for method, _path, headers, _body in gateway.forwarded if method == "PATCH"]
    assert len(patches) == 2
    assert patches[0]["idempotency-key"] == patches[1]["idempotency-key"]
    assert patches[0]["if-match"] == patches[1]["if-match"]
    # The service recognised the repeat: one new revision, not two.
    assert published["revision"] == 2
    assert client.get_session(created["id"])["revision"] == 2


def test_a_create_whose_answer_was_lost_is_not_repeated(make_client: Callable[..., Any], gateway: Gateway) -> None:
    client = make_client(base_url=gateway.url)
    gateway.faults = ["page_after"]
    with pytest.raises(ClientError) as unknown:
        client.create_session(refund_question())
    assert (unknown.value.code, unknown.value.status) == ("OUTCOME_UNKNOWN", 502)
    assert "Not retried" in unknown.value.message
    assert [method for method, _path, _headers, _body in gateway.forwarded] == ["POST"]


def sessions_holding(reference: str) -> list[str]:
    """The ids of the Sessions the service lists for the reference, asked directly."""
    url, key = service()
    listed = httpx.get(f"{url}/v1/sessions", params={"client_reference_id": reference}, headers={"authorization": f"Bearer {key}"})
    assert listed.status_code == 200, listed.text
    return [summary["id"] for summary in listed.json()["data"]]


def create_directly(reference: str) -> str:
    """A create of the same reference reaching the service by another way (a lost create committing late)."""
    url, key = service()
    created = httpx.post(f"{url}/v1/sessions", json={"interaction": refund_question(), "client_reference_id": reference}, headers={"authorization": f"Bearer {key}"})
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def test_a_create_with_a_reference_whose_answer_was_lost_answers_with_the_session_it_made(make_client: Callable[..., Any], gateway: Gateway) -> None:
    reference = f"order-{uuid.uuid4()}"
    client = make_client(base_url=gateway.url)
    gateway.faults = ["page_after"]
    created = client.create_session(refund_question(), client_reference_id=reference)
    [made] = sessions_holding(reference)
    assert (created["id"], created["client_reference_id"], created["revision"]) == (made, reference, 1)
    assert [(method, path) for method, path, _headers, _body in gateway.forwarded] == [
        ("POST", "/v1/sessions"),
        ("GET", f"/v1/sessions?client_reference_id={reference}&limit=1"),
        ("POST", f"/v1/sessions/{made}/link"),
    ]
    # The new link is the Session's: the person answers through it, and the wait gets the answer.
    answer_through_link(created["human_url"], "approve", {"amount": "12.5"})
    assert client.wait_for_response(created["id"]).response["action_id"] == "approve"


def test_a_create_with_a_reference_that_never_reached_the_service_is_made_on_the_retry(make_client: Callable[..., Any], gateway: Gateway) -> None:
    reference = f"order-{uuid.uuid4()}"
    client = make_client(base_url=gateway.url)
    gateway.faults = ["page_before"]
    created = client.create_session(refund_question(), client_reference_id=reference)
    assert sessions_holding(reference) == [created["id"]]
    assert [method for method, _path, _headers, _body in gateway.forwarded] == ["GET", "POST"]


def test_a_create_with_a_reference_refused_as_in_use_on_the_retry_answers_with_the_session_holding_it(make_client: Callable[..., Any], gateway: Gateway) -> None:
    reference = f"order-{uuid.uuid4()}"
    client = make_client(base_url=gateway.url)
    made: list[str] = []
    # The first create is lost on its way, the lookup finds nothing, and before the retry arrives a
    # create of the same reference commits: the retry is answered 409 CLIENT_REFERENCE_IN_USE.
    gateway.faults = ["page_before", None, lambda: made.append(create_directly(reference))]
    created = client.create_session(refund_question(), client_reference_id=reference)
    assert sessions_holding(reference) == made == [created["id"]]
    assert [(method, path) for method, path, _headers, _body in gateway.forwarded][-1] == ("POST", f"/v1/sessions/{created['id']}/link")


def test_a_reference_another_create_holds_is_refused_on_the_first_try(make_client: Callable[..., Any], gateway: Gateway) -> None:
    reference = f"order-{uuid.uuid4()}"
    held_by = create_directly(reference)
    client = make_client(base_url=gateway.url)
    with pytest.raises(ServiceError) as refused:
        client.create_session(refund_question(), client_reference_id=reference)
    assert (refused.value.code, refused.value.details) == ("CLIENT_REFERENCE_IN_USE", {"session_id": held_by})
    assert [method for method, _path, _headers, _body in gateway.forwarded] == ["POST"]


def test_a_read_is_tried_four_times_then_reported_unknown(make_client: Callable[..., Any], gateway: Gateway) -> None:
    client = make_client(base_url=gateway.url)
    gateway.faults = ["page_before"] * 4
    with pytest.raises(ClientError) as unknown:
        client.me()
    assert unknown.value.code == "OUTCOME_UNKNOWN" and "Tried 4 times" in unknown.value.message
    assert gateway.received == 4


def test_a_refusal_of_the_service_is_never_retried(make_client: Callable[..., Any], gateway: Gateway) -> None:
    client = make_client(base_url=gateway.url)
    with pytest.raises(ServiceError) as refused:
        client.get_session("ses_00000000000000000000000000")
    assert refused.value.code == "SESSION_NOT_FOUND"
    assert gateway.received == 1


def test_a_connection_never_made_sent_nothing(make_client: Callable[..., Any]) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    client = make_client(base_url=f"http://127.0.0.1:{port}")
    with pytest.raises(ClientError) as failed:
        client.me()
    assert failed.value.code == "CONNECTION_FAILED"


def test_create_sends_decision_and_client_reference_id_as_given_and_nothing_unasked(make_client: Callable[..., Any], gateway: Gateway) -> None:
    client = make_client(base_url=gateway.url)
    client.create_session(refund_question(), notify={"email": ["approver@example.com"]})
    decision = {"kind": "quorum", "required": 2}
    try:
        client.create_session(refund_question(), decision=decision, client_reference_id="order-1042")
    except ServiceError as refused:
        # A service from before these fields refuses them; one after takes them. Either way they were sent.
        assert refused.code == "INVALID_SCHEMA"
    [plain, with_fields] = [json.loads(body) for method, _path, _headers, body in gateway.forwarded if method == "POST"]
    assert plain == {"interaction": refund_question(), "notify": {"email": ["approver@example.com"]}}
    assert with_fields == {"interaction": refund_question(), "decision": decision, "client_reference_id": "order-1042"}
