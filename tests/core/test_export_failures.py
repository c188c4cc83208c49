"""Exports that cannot be written say so in one line, and leave the previous export whole
(defects 9, 10): a full disk and a read-only target, for every export command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.drills.kills import EXPORT_KINDS, snapshot
from tests.drills.stores import build_store

ROOT = Path(__file__).resolve().parents[2]


def _namespaces_work(tmp: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o size=64k none '{tmp}'"],
                           capture_output=True)
    return probe.returncode == 0


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("export-failures")
    if not _namespaces_work(root):
        pytest.skip("no unprivileged mount namespace here (unshare -rm) for a full or read-only disk")
    build_store(root / "s.sqlite", root / "corpus", "A", n=90)
    yield root / "s.sqlite"


def _run_in_namespace(setup: str, argv: list[str], store: Path, show: Path | None = None,
                      ) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a private mount namespace; ``show``: list what is left under that
    folder afterwards (on stdout, one ``LEFT`` line), before the namespace goes away."""
    command = " ".join(f"'{a}'" for a in [sys.executable, "-m", "core.cli", *argv, "--store", str(store)])
    listing = f"; echo \"LEFT:$(cd '{show}' && find . -mindepth 1 | sort | tr '\\n' ' ')\"" if show else ""
    script = f"{setup} && {{ {command}; rc=$?{listing}; exit $rc; }}"
    return subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _one_clear_line(result: subprocess.CompletedProcess[str], why: str) -> None:
    assert result.returncode == 1, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and why in lines[0] and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize("kind", sorted(EXPORT_KINDS))
def test_a_full_disk_is_one_line_and_leaves_nothing_behind(store: Path, tmp_path: Path, kind: str) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    target = disk / "out"
    # One page: the export's folders fit (tmpfs folders take no pages), its files do not.
    result = _run_in_namespace(
        f"mount -t tmpfs -o size=4k none '{disk}' && mkdir -p '{target}'",
        EXPORT_KINDS[kind](target), store, show=disk)
    _one_clear_line(result, "No space left on device")
    # No half-written files, staging folders or .tmp files: only the empty target folder.
    assert "LEFT:./out \n" in result.stdout or result.stdout.endswith("LEFT:./out \n"), result.stdout


@pytest.mark.parametrize("kind", sorted(EXPORT_KINDS))
def test_a_full_disk_names_the_export_and_says_the_previous_one_is_unchanged(
    store: Path, tmp_path: Path, kind: str
) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    target = disk / "out"
    result = _run_in_namespace(f"mount -t tmpfs -o size=4k none '{disk}' && mkdir -p '{target}'",
                               EXPORT_KINDS[kind](target), store)
    line = next(line for line in result.stderr.splitlines() if line.startswith("error:"))
    assert str(target) in line and "previous export there, if any, is unchanged" in line, line


@pytest.mark.parametrize("kind", sorted(EXPORT_KINDS))
def test_a_read_only_target_is_one_line_and_the_previous_export_is_kept(
    store: Path, tmp_path: Path, kind: str
) -> None:
    target = tmp_path / "disk" / "out"
    target.parent.mkdir()
    first = subprocess.run([sys.executable, "-m", "core.cli", *EXPORT_KINDS[kind](target), "--store", str(store)],
                           capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert first.returncode == 0, first.stderr
    before = snapshot(target)
    result = _run_in_namespace(f"mount --bind -o ro '{target.parent}' '{target.parent}'",
                               EXPORT_KINDS[kind](target), store)
    _one_clear_line(result, "Read-only file system")
    assert snapshot(target) == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["out"]


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    from core.export.atomic import write_file_atomic

    target = tmp_path / "team.json"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    leftover = tmp_path / f".team.json.{int(dead.stdout)}.abc123.tmp"  # as a SIGKILLed export leaves it
    leftover.write_text("half")
    live = tmp_path / f".team.json.{os.getpid()}.zzz.tmp"  # a writer still running keeps its file
    live.write_text("in progress")
    write_file_atomic(target, "done")
    assert target.read_text() == "done" and not leftover.exists() and live.exists()
