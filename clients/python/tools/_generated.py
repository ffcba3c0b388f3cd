"""What every generator of clients/python/tools does with what it makes: writes it, or with
--check says whether the committed file is it."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(module: Path, made_from: Path, output: str, tool: str, argv: list[str]) -> int:
    if "--check" in argv:
        if module.read_text(encoding="utf-8") != output:
            print(f"{module} is not what {made_from} generates: run {tool}", file=sys.stderr)
            return 1
        return 0
    module.write_text(output, encoding="utf-8")
    return 0
