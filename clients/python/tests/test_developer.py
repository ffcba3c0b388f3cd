"""A developer key's receipts name its own workspace: the audience verify_receipt reads from GET /v1/me."""

from __future__ import annotations

import os
from typing import Any, Callable

from conftest import refund_question
from person import answer_through_link


def test_verifies_a_developer_keys_receipt_for_its_workspace(make_client: Callable[..., Any]) -> None:
    # make_client's options go to the client; the credential is the developer's, not the owner's.
    client = make_client(api_key=os.environ["SVC_DEVELOPER_KEY"])
    assert client.me() == {"workspace_id": os.environ["SVC_DEVELOPER_WORKSPACE"], "credential": "developer"}
    created = client.create_session(refund_question())
    answer_through_link(created["human_url"], "reject", {"amount": "0"})
    answered = client.wait_for_response(created["id"], timeout=30)
    claims = client.verify_receipt(created["id"], answered.response)
    assert claims["workspace_id"] == os.environ["SVC_DEVELOPER_WORKSPACE"]
    assert claims["action_id"] == "reject"
