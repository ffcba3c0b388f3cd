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


def test_a_construct_no_rule_covers_stops_the_tool(tmp_path: Path) -> None:
    source = tmp_path / "_async_client.py"
    text = unasync.SOURCE.read_text(encoding="utf-8")
    source.write_text(text.replace("await asyncio.sleep(step.seconds)", "await asyncio.wait_for(asyncio.sleep(step.seconds), 60)"), encoding="utf-8")
    with pytest.raises(ValueError, match="still says 'asyncio'"):
        unasync.render(source)


def test_a_docstring_of_the_source_no_prose_rule_matches_stops_the_tool(tmp_path: Path) -> None:
    source = tmp_path / "_async_client.py"
    text = unasync.SOURCE.read_text(encoding="utf-8")
    source.write_text(text.replace("each call is a coroutine", "each of its calls is a coroutine"), encoding="utf-8")
    with pytest.raises(ValueError, match="update PROSE"):
        unasync.render(source)
