"""verify_webhook on webhooks the service signed and delivered (test/client/python.test.ts wrote
them to SVC_WEBHOOKS): the challenge, signed by the first secret alone, and an accepted answer
delivered after a rotation, signed by both."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from svc_handoff import ClientError, verify_webhook


@pytest.fixture(scope="module")
def webhooks() -> Any:
    with open(os.environ["SVC_WEBHOOKS"], encoding="utf-8") as file:
        return json.load(file)


def refusal(*args: Any, **kwargs: Any) -> str:
    try:
        verify_webhook(*args, **kwargs)
    except ClientError as error:
        return f"{error.code} {error.reason}"
    return "verified"


def test_accepts_a_delivery_with_any_secret_of_a_rotation(webhooks: Any) -> None:
    delivery = webhooks["delivery"]
    assert len(delivery["headers"]["webhook-signature"].split()) == 2
    for secrets in ([webhooks["newest"], webhooks["previous"]], [webhooks["newest"]], webhooks["previous"]):
        payload = verify_webhook(delivery["headers"], delivery["body"], secrets)
        assert payload["type"] == "response.accepted"
        assert payload["data"] == {"amount": 12.5, "reason": "damaged"}  # type: ignore[typeddict-item]
    assert verify_webhook(delivery["headers"], delivery["body"].encode(), webhooks["newest"])["event_id"] == delivery["headers"]["webhook-id"]  # type: ignore[typeddict-item]


def test_refuses_the_challenge_with_a_secret_that_did_not_sign_it(webhooks: Any) -> None:
    challenge = webhooks["challenge"]
    assert verify_webhook(challenge["headers"], challenge["body"], webhooks["previous"])["type"] == "svc.webhook.verification"
    assert refusal(challenge["headers"], challenge["body"], [webhooks["newest"]]) == "WEBHOOK_INVALID signature"


def test_refuses_a_changed_body_and_missing_headers(webhooks: Any) -> None:
    delivery = webhooks["delivery"]
    changed = delivery["body"].replace('"amount":12.5', '"amount":125')
    assert changed != delivery["body"]
    assert refusal(delivery["headers"], changed, webhooks["newest"]) == "WEBHOOK_INVALID signature"
    unsigned = {name: value for name, value in delivery["headers"].items() if name != "webhook-signature"}
    assert refusal(unsigned, delivery["body"], webhooks["newest"]) == "WEBHOOK_INVALID headers"


def test_refuses_a_timestamp_beyond_the_tolerance(webhooks: Any) -> None:
    delivery = webhooks["delivery"]
    sent = int(delivery["headers"]["webhook-timestamp"])
    assert refusal(delivery["headers"], delivery["body"], webhooks["newest"], now=sent + 299) == "verified"
    assert refusal(delivery["headers"], delivery["body"], webhooks["newest"], now=sent + 301) == "WEBHOOK_INVALID timestamp"
    assert refusal(delivery["headers"], delivery["body"], webhooks["newest"], now=sent - 301) == "WEBHOOK_INVALID timestamp"
    assert refusal(delivery["headers"], delivery["body"], webhooks["newest"], now=sent + 10, tolerance=5) == "WEBHOOK_INVALID timestamp"


def test_reads_the_endpoint_and_the_sessions_deliveries_and_queues_a_redelivery(client: Any, webhooks: Any) -> None:
    delivered = json.loads(webhooks["delivery"]["body"])
    assert client.get_webhook()["endpoint"]["status"] == "verified"
    assert [event["type"] for event in client.session_events(delivered["session_id"])["events"]][-1] == "response.accepted"
    client.redeliver(delivered["session_id"], delivered["event_id"])
    jobs = client.deliveries(delivered["session_id"])["deliveries"]
    assert [job["kind"] for job in jobs][:2] == ["accepted", "redelivery"]
    assert jobs[0]["status"] == "delivered"
