"""core.corpus is pure Python: importable without Qt, and independent of the reference package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
sys.modules["PySide6"] = None      # any 'import PySide6' now fails
sys.modules["cauterule"] = None    # the reference package is a test oracle only
import core.corpus.jsonl, core.corpus.validation, core.corpus.rules
import core.corpus.walk, core.corpus.roles, core.corpus.writer
loaded = [m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "cauterule") and sys.modules[m] is not None]
assert not loaded, loaded
print("ok")
"""


def test_corpus_modules_import_without_pyside6_or_cauterule() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
