"""Writes svc_handoff/_client.py (Client) from svc_handoff/_async_client.py (AsyncClient).

The two clients are the same calls, one awaited: the async one is the source, and the sync one is
made from it by a fixed list of replacements (the "unasync" way httpcore keeps its two), so they
cannot drift apart. Prose that must read differently in each (the docstrings) is replaced by rules
too, never edited by hand; a test regenerates the module and compares (the drift check). Standard
library only.

    python clients/python/tools/unasync.py           # rewrite _client.py
    python clients/python/tools/unasync.py --check   # exit 1 when _client.py is out of date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from _generated import write_or_check

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "svc_handoff"
SOURCE = PACKAGE / "_async_client.py"
MODULE = PACKAGE / "_client.py"

HEADER = (
    f"# Generated from {SOURCE.name} by clients/python/tools/{Path(__file__).name}: do not edit by hand.\n"
    f"# Edit {SOURCE.name} and run that script; a test fails while this file differs from what it writes.\n"
)

# Whole phrases that say something else of the sync client, replaced first; each must be found, so a
# docstring edited in the source cannot silently leave the sync one saying the old thing.
PROSE = [
    ('"""The asynchronous client: AsyncClient, the source of Client (see tools/unasync.py)."""', '"""The synchronous client."""'),
    ("As Client, on httpx.AsyncClient; each call is a coroutine, events() an async iterator.\n\n    ", ""),
    ("Use it as an async context manager, or await aclose().", "Use it as a context manager, or call close()."),
]

# Then tokens, everywhere, in this order.
TOKENS = [
    (r"\basync def\b", "def"),
    (r"\basync (with|for)\b", r"\1"),
    (r"\bawait ", ""),
    (r"\bAsyncClient\b", "Client"),
    (r"\baclose\b", "close"),
    (r"\b__aenter__\b", "__enter__"),
    (r"\b__aexit__\b", "__exit__"),
    (r"\bAsyncIterator\b", "Iterator"),
    (r"\basyncio\.sleep\b", "time.sleep"),
    (r"^import asyncio$", "import time"),
]

# What no line of the sync client may say once replaced: a construct of the source no rule covers.
LEFT_OVER = re.compile(r"\b(async|await|asyncio|Async\w*|a(close|enter|exit|iter|next)\w*)\b", re.IGNORECASE)


def render(source: Path = SOURCE) -> str:
    text = source.read_text(encoding="utf-8")
    for phrase, replacement in PROSE:
        if phrase not in text:
            raise ValueError(f"{source.name} no longer says {phrase!r}: update PROSE in {Path(__file__).name}")
        text = text.replace(phrase, replacement)
    for pattern, replacement in TOKENS:
        text = re.sub(pattern, replacement, text, flags=re.MULTILINE)
    for number, line in enumerate(text.splitlines(), 1):
        found = LEFT_OVER.search(line)
        if found:
            raise ValueError(f"{source.name}, line {number} of the sync client still says {found.group(0)!r}: add a rule to {Path(__file__).name}")
    return HEADER + text


def main(argv: list[str]) -> int:
    output = render()
    return write_or_check(MODULE, SOURCE, output, Path(__file__).name, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
