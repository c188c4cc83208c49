"""Exports honour the umask as ``cp`` does and never change an existing folder's mode
(issue 25 item 4): every export command, under umask 022 and 077."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.drills.kills import EXPORT_KINDS, env
from tests.drills.stores import build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("export-modes")
    build_store(root / "s.sqlite", root / "corpus", "A", n=60)
    yield root / "s.sqlite"


def _export(kind: str, target: Path, store: Path, umask: int) -> None:
    argv = [sys.executable, "-m", "core.cli", *EXPORT_KINDS[kind](target), "--store", str(store)]
    done = subprocess.run(argv, env=env(), capture_output=True, text=True, timeout=300,
                          preexec_fn=lambda: os.umask(umask))
    assert done.returncode == 0, done.stderr


def _modes(root: Path) -> dict[str, int]:
    """Mode of every folder and file written under ``root`` (``root`` itself included)."""
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for path in root.rglob("*"):
        found[path.relative_to(root).as_posix()] = stat.S_IMODE(path.lstat().st_mode)
    return found


@pytest.mark.parametrize("umask", [0o022, 0o077])
@pytest.mark.parametrize("kind", sorted(EXPORT_KINDS))
def test_new_exports_get_the_umask_modes(store: Path, tmp_path: Path, kind: str, umask: int) -> None:
    target = tmp_path / "out"
    _export(kind, target, store, umask)
    modes = _modes(target)
    for rel, mode in modes.items():
        expected = 0o777 & ~umask if (target / rel).is_dir() else 0o666 & ~umask
        assert mode == expected, f"{rel}: {oct(mode)} != {oct(expected)} ({modes})"


@pytest.mark.parametrize("kind", sorted(EXPORT_KINDS))
def test_an_existing_folder_keeps_its_mode(store: Path, tmp_path: Path, kind: str) -> None:
    target = tmp_path / "out"
    target.mkdir()
    target.chmod(0o755)
    _export(kind, target, store, 0o077)
    _export(kind, target, store, 0o077)  # a second export replaces the first one's folder
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
