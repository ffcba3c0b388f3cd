"""Retries happen only when the outcome is unknown, and then with the same bytes, key and If-Match."""

from __future__ import annotations

import json
import socket
from typing import Any, Callable

import pytest
from conftest import refund_question, service
from gateway import Gateway

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
