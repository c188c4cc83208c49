"""core/ never imports PySide6 or cauterule_gui, and works with PySide6 unimportable."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"
FORBIDDEN = ("PySide6", "shiboken6", "cauterule_gui")

BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {forbidden!r}:
            raise ImportError('blocked for the layering test: ' + name)
        return None
sys.meta_path.insert(0, Block())
"""


def _imported_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_core_module_mentions_qt_or_the_gui_package() -> None:
    offenders = [
        f"{path.relative_to(CORE.parent)}: {name}"
        for path in CORE.rglob("*.py")
        for name in _imported_names(path)
        if name.split(".")[0] in FORBIDDEN
    ]
    assert offenders == []


def test_every_core_module_imports_with_pyside6_blocked() -> None:
    modules = sorted(
        ".".join(path.relative_to(CORE.parent).with_suffix("").parts).removesuffix(".__init__")
        for path in CORE.rglob("*.py")
    )
    script = BLOCKER.format(forbidden=set(FORBIDDEN)) + "\nimport importlib\n" + "".join(
        f"importlib.import_module({m!r})\n" for m in modules
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]


def test_this_core_run_has_qt_blocked_when_asked() -> None:
    """`./dev.sh test` runs tests/core with WORKBENCH_BLOCK_QT=1; then Qt must be unimportable."""
    import os

    if os.environ.get("WORKBENCH_BLOCK_QT") != "1":
        return
    try:
        import PySide6  # noqa: F401
    except ImportError:
        return
    raise AssertionError("PySide6 imported although WORKBENCH_BLOCK_QT=1")
