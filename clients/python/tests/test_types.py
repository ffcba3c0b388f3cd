"""The drift check: svc_handoff/openapi.py is exactly what tools/generate_types.py makes of docs/openapi.json."""

from __future__ import annotations

import typing
from pathlib import Path

import svc_handoff.openapi as generated
from conftest import load_tool


def test_the_generated_types_are_those_of_the_committed_contract() -> None:
    tool = load_tool("generate_types")
    assert Path(generated.__file__).read_text(encoding="utf-8") == tool.render(), "run clients/python/tools/generate_types.py (npm run openapi:write)"


def test_every_generated_type_resolves() -> None:
    for name in dir(generated):
        value = getattr(generated, name)
        if isinstance(value, type) and issubclass(value, dict) and value is not dict:
            typing.get_type_hints(value)
    assert typing.get_args(generated.Interaction) == (generated.DisplayInteraction, generated.InteractiveInteraction)


def test_the_docs_show_the_tested_example_as_it_is() -> None:
    root = Path(__file__).resolve().parents[3]
    example = (root / "examples" / "python" / "agent.py").read_text(encoding="utf-8")
    assert f"```python\n{example}```" in (root / "docs" / "python.md").read_text(encoding="utf-8")
