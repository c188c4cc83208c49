"""Shared test fixtures.

The shared CauterRule corpus lives at ``../shared/corpora/cauterule`` relative to the
project root. A user's fresh clone has no ``../shared``: tests that need it skip with a
clear reason, unless ``CAUTERULE_SHARED_CORPUS=required`` (set by ``.ci/run``), in which
case its absence is a failure.
"""

from __future__ import annotations

import importlib.abc
import os
import sys
from pathlib import Path

import pytest


class _BlockQt(importlib.abc.MetaPathFinder):
    """Makes PySide6 and the GUI package unimportable, to prove the core does not need them."""

    blocked = frozenset({"PySide6", "shiboken6", "cauterule_gui", "pytestqt"})

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.split(".")[0] in self.blocked:
            raise ImportError(f"{name} is blocked: core tests run without Qt (WORKBENCH_BLOCK_QT=1)")
        return None


if os.environ.get("WORKBENCH_BLOCK_QT") == "1":
    sys.meta_path.insert(0, _BlockQt())

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_CORPUS = PROJECT_ROOT.parent / "shared" / "corpora" / "cauterule"
DEMO_CORPUS = PROJECT_ROOT / "corpora" / "demo"


@pytest.fixture(autouse=True)
def _hermetic_environment(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may touch the user's real data, config or settings."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session")
def shared_corpus() -> Path:
    """Path to the shared CauterRule corpus; skip (or fail in CI) when it is absent."""
    if SHARED_CORPUS.is_dir():
        return SHARED_CORPUS
    message = f"shared CauterRule corpus not found at {SHARED_CORPUS}"
    if os.environ.get("CAUTERULE_SHARED_CORPUS") == "required":
        pytest.fail(message + " (CAUTERULE_SHARED_CORPUS=required)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def demo_corpus() -> Path:
    return DEMO_CORPUS
