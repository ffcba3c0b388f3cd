"""The drift check of the two clients: svc_handoff/_client.py is exactly what tools/unasync.py makes
of _async_client.py, and the tool stops rather than write a sync client its rules did not cover."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TOOLS, load_tool

unasync = load_tool("unasync")


def test_the_sync_client_is_what_the_tool_makes_of_the_async_one() -> None:
    done = subprocess.run([sys.executable, str(TOOLS / "unasync.py"), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, f"{done.stderr}(edit _async_client.py, then run clients/python/tools/unasync.py)"


@pytest.mark.parametrize(
    ("edit", "complaint"),
    [
        # A construct no token rule covers.
        (("await asyncio.sleep(step.seconds)", "await asyncio.wait_for(asyncio.sleep(step.seconds), 60)"), "still says 'asyncio'"),
        # A docstring of the source that no prose rule matches any longer.
        (("each call is a coroutine", "each of its calls is a coroutine"), "update PROSE"),
    ],
)
def test_what_its_rules_do_not_cover_stops_the_tool(tmp_path: Path, edit: tuple[str, str], complaint: str) -> None:
    source = tmp_path / "_async_client.py"
    text = unasync.SOURCE.read_text(encoding="utf-8")
    assert edit[0] in text
    source.write_text(text.replace(*edit), encoding="utf-8")
    with pytest.raises(ValueError, match=complaint):
        unasync.render(source)
