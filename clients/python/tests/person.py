"""The person's side, as the tests play it: answer through the human link the way its page posts the form."""

from __future__ import annotations

import re
from typing import Mapping, Union

import httpx

# What Chromium sends with a form the page itself posts (Fetch Metadata).
PAGE_FORM_HEADERS = {"content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin"}


def answer_through_link(human_url: str, action_id: str, fields: Mapping[str, Union[str, list[str]]] = {}) -> str:
    """Opens the link, takes the form's hidden inputs, posts them with the fields and the pressed
    button's action; returns the page the service answers (asserting it took the answer)."""
    opened = httpx.get(human_url)
    assert opened.status_code == 200, opened.text

    def hidden(name: str) -> str:
        found = re.search(rf'<input type="hidden" name="{name}" value="([^"]+)">', opened.text)
        assert found, f"no hidden {name} on the page"
        return found.group(1)

    form = [("client_event_id", hidden("client_event_id")), ("surface_revision", hidden("surface_revision"))]
    for name, value in fields.items():
        form += [(f"data.{name}", text) for text in ([value] if isinstance(value, str) else value)]
    form.append(("action_id", action_id))
    posted = httpx.post(human_url, headers=PAGE_FORM_HEADERS, content=httpx.QueryParams(form).__str__())
    assert posted.status_code == 200, posted.text
    return posted.text
