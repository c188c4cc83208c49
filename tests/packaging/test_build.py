"""Build the frozen app and smoke-test it: minutes, so only with ``CAUTERULE_PACKAGING=1``.

    CAUTERULE_PACKAGING=1 ./dev.sh test tests/packaging/test_build.py

Runs ``packaging/build.sh`` (clean PyInstaller build into packaging/dist/) with this Python,
then ``packaging/smoke_test.sh`` (the built app's ``--self-test``, offscreen).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("CAUTERULE_PACKAGING") != "1",
                       reason="builds the desktop app (minutes); set CAUTERULE_PACKAGING=1 to run"),
]


def test_build_and_smoke_test_the_frozen_app() -> None:
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PYTHON"] = sys.executable
    build = subprocess.run([str(ROOT / "packaging" / "build.sh")], env=env, capture_output=True, text=True,
                           timeout=3600)
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    assert (ROOT / "packaging" / "dist" / "cauterule-workbench" / "cauterule-gui").is_file()
    smoke = subprocess.run([str(ROOT / "packaging" / "smoke_test.sh")], capture_output=True, text=True, timeout=900)
    assert smoke.returncode == 0, smoke.stdout[-4000:] + smoke.stderr[-4000:]
    assert "self-test passed" in smoke.stdout
