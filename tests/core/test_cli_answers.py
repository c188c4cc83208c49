"""CLI answers that say something (issue 25 item 10): an unknown id is one line on stderr and
a non-zero exit, ``gate`` on an empty store says so, and cross-session windows are checked
and bounded before anything is allocated."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core import cli
from core.loop.cross_session import MAX_WINDOW_SESSIONS, parse_window

from tests.drills.stores import build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("answers")
    build_store(root / "s.sqlite", root / "corpus", "A", n=30)
    yield root / "s.sqlite"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv", [
    ["injection", "--rule", "99999"],
    ["replay", "--no-semantic", "--rule", "99999"],
    ["ruler", "--no-semantic", "--run", "99999"],
    ["report", "--run", "99999"],
    ["injection", "--run", "99999"],
    ["decide", "defer", "--rule", "99999", "--reviewer", "ana"],
    ["agreement", "--session", "99999"],
    ["agreement", "team-status", "99999"],
    ["export-trajectories", "--corpus", "nope", "--out", "unused"],
    ["gate", "--corpus", "nope"],
], ids=lambda argv: " ".join(argv[:3]))
def test_an_unknown_id_is_one_line_and_a_failure(
    store: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = _run([*argv, "--store", str(store)], capsys)
    assert code != 0 and out == "" and len(err.strip().splitlines()) == 1, (code, out, err)
    assert "99999" in err or "nope" in err


def test_a_replay_of_an_unknown_rule_starts_no_run(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from core.store.engine import open_store
    from core.store.replay_repo import ReplayRepository

    def latest() -> object:
        opened = open_store(store)
        try:
            return ReplayRepository(opened).latest_complete_run()
        finally:
            opened.close()

    before = latest()
    _run(["replay", "--no-semantic", "--rule", "99999", "--store", str(store)], capsys)
    assert latest() == before


def test_gate_on_an_empty_store_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from core.store.engine import open_store

    open_store(tmp_path / "empty.sqlite").close()  # a missing --store path is refused (issue 23)
    code, out, _err = _run(["gate", "--store", str(tmp_path / "empty.sqlite")], capsys)
    assert code == 0 and "no trajectories in this store" in out


@pytest.mark.parametrize("window, why", [
    ("5-4", "runs backwards"),
    ("1-99999999999", f"more than {MAX_WINDOW_SESSIONS:,} sessions"),
    ("1-6000,7000-12000", f"more than {MAX_WINDOW_SESSIONS:,} sessions"),
    ("four", "expected session numbers"),
])
def test_a_bad_or_unbounded_window_is_refused(window: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_window(window)


def test_cross_session_refuses_a_backwards_window_in_one_line(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = tmp_path / "s.jsonl"
    sessions.write_text('{"session": 4, "failure_class": "a", "success": false}\n')
    code, out, err = _run(["cross-session", "--baseline", str(sessions), "--intervention", str(sessions),
                           "--window", "5-4", "--store", str(store)], capsys)
    assert (code, out) == (2, "") and "runs backwards" in err and len(err.splitlines()) == 1


def test_a_window_still_reads_ranges_and_lists() -> None:
    assert parse_window("4-5") == (4, 5) and parse_window("1,3-4") == (1, 3, 4) and parse_window(" ") is None
