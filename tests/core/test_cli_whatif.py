"""``whatif``: a draft of a rule's text replayed from the command line, a dry run (issue 24 item 8)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from core.cli import main

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture()
def store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "s.sqlite")
    _run(capsys, "import", str(DEMO), "--store", path)
    _run(capsys, "replay", "--store", path, "--from-expected-rule", "--no-semantic")
    return path


def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_a_dry_run_prints_before_and_after_and_every_move(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "whatif", "--store", store, "--rule", "3", "--trigger", "when the owls sing",
                          "--no-semantic")
    assert code == 0 and err == ""
    assert "→ draft (not saved)" in out and "verdict: inconclusive" in out
    assert "prevented → missed" in out and "nothing was saved" in out


def test_a_dry_run_leaves_the_store_file_as_it_was(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = _digest(store)
    assert _run(capsys, "whatif", "--store", store, "--rule", "3", "--trigger", "when the owls sing",
                "--no-semantic")[0] == 0
    assert _digest(store) == before


def test_json_holds_the_summary_with_its_moves(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "whatif", "--store", store, "--rule", "3", "--trigger", "when the owls sing",
                        "--directive", "listen", "--no-semantic", "--json")
    body = json.loads(out)
    assert code == 0 and body["rule_id"] == 3 and body["directive"] == "listen" and body["semantic_state"] == "off"
    assert body["before_counts"]["prevented"] >= 1 and body["counts"]["prevented"] == 0
    assert any(move[3] == "prevented" and move[4] == "missed" for move in body["moves"])


@pytest.mark.parametrize(("argv", "says"), [
    (("--rule", "999", "--trigger", "x"), "error: no rule 999 in this store"),
    (("--rule", "3", "--trigger", "  "), "error: the trigger is empty"),
])
def test_bad_input_is_one_line(store: str, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...],
                               says: str) -> None:
    code, _out, err = _run(capsys, "whatif", "--store", store, "--no-semantic", *argv)
    assert code == 1 and err.startswith(says) and err.count("\n") == 1
