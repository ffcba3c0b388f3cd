"""The package as its users get it: the wheel built, installed into a fresh virtual environment
(with its declared dependencies from the index pip is configured for), and the worked example
(examples/python/agent.py) run there to an answer given through the link and a verified receipt."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Optional

from conftest import service
from person import answer_through_link

CLIENT = Path(__file__).resolve().parents[1]
EXAMPLE = CLIENT.parents[1] / "examples" / "python" / "agent.py"


def run(*args: str | Path, cwd: Path, env: Optional[dict[str, str]] = None) -> str:
    done = subprocess.run([str(arg) for arg in args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}{done.stderr}"
    return done.stdout


def test_the_wheel_installs_into_a_fresh_environment_and_runs_the_example(tmp_path: Path) -> None:
    run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", tmp_path / "dist", CLIENT, cwd=tmp_path)
    [wheel] = (tmp_path / "dist").glob("svc_handoff-*.whl")
    assert {"svc_handoff/py.typed", "svc_handoff/openapi.py"} <= set(zipfile.ZipFile(wheel).namelist())

    # A fresh environment, given its packages by this one's pip; the dependencies come from the
    # wheelhouse npm test filled from the index (SVC_PYTHON_WHEELHOUSE), else from the index itself.
    run(sys.executable, "-m", "venv", "--without-pip", tmp_path / "venv", cwd=tmp_path)
    python = tmp_path / "venv" / "bin" / "python"
    wheelhouse = os.environ.get("SVC_PYTHON_WHEELHOUSE")
    source = ["--no-index", "--find-links", wheelhouse] if wheelhouse else ["--retries", "2"]
    run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--disable-pip-version-check", *source, wheel, cwd=tmp_path)

    url, key = service()
    # Nothing of this checkout on the path: the example imports the installed package.
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    assert run(python, "-c", "import svc_handoff; print(svc_handoff.__file__)", cwd=tmp_path, env=env).startswith(str(tmp_path / "venv"))
    agent = subprocess.Popen([python, EXAMPLE], cwd=tmp_path, env={**env, "SVC_URL": url, "SVC_API_KEY": key}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert agent.stdout is not None
    output = ""
    for line in agent.stdout:
        output += line
        link = re.search(r"https?://\S+/s/\S+", line)
        if link:
            answer_through_link(link.group(0), "approve", {"amount": "30", "note": "Sorry about the parcel."})
            break
    output += agent.stdout.read()
    assert agent.wait(timeout=60) == 0, output
    assert 'Receipt verified: "Approve refund: Approve the refund for order 1042 (revision 1)"' in output
    assert "for workspace wks_operator." in output
    assert "Decision: refund 30.00 EUR (note: Sorry about the parcel.)." in output
