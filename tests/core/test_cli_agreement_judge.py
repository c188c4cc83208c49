"""Issue 24 item 13: ``agreement new`` and ``agreement judge`` (interactive and ``--answers FILE``)
show the GUI's blind view (core.agreement.session.judging_view) and commit as the GUI does."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from core.agreement.session import judging_view, next_item
from core.cli import main
from core.importing import import_paths
from core.replay.profiles import WORKBENCH
from core.replaying import materialise_expected_rules, run_replay
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store, open_store

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("judge") / "s.sqlite"
    store = open_store(path)
    import_paths(store, [DEMO])
    materialise_expected_rules(store)
    run_replay(store, WORKBENCH.with_(semantic=False))
    store.close()
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _new_session(capsys: pytest.CaptureFixture[str], store_path: Path, seed: int) -> int:
    code, out, err = _run(capsys, "agreement", "new", "--store", str(store_path), "--by", "lead", "--size", "4",
                          "--seed", str(seed), "--json")
    assert code == 0, err
    created = json.loads(out)
    assert created["blind"] and created["size"] == 4
    return int(created["id"])


def _replay_answers(store_path: Path, session_id: int) -> list[str]:
    """An answers file agreeing with replay on every item (read here from the store, as a test may)."""
    store = open_store(store_path)
    try:
        return [f"{i.ordinal} {i.replay_answer}" + (" in_scope" if i.scope_replay is not None else "")
                for i in AgreementRepository(store).items_with_answers(session_id)]
    finally:
        store.close()


def _judged(store_path: Path, session_id: int, reviewer: str) -> int:
    store = open_store(store_path)
    try:
        return len(AgreementRepository(store).judgements(session_id, reviewer))
    finally:
        store.close()


def test_new_then_judge_from_an_answers_file_commits_every_item(
    capsys: pytest.CaptureFixture[str], store_path: Path, tmp_path: Path,
) -> None:
    session_id = _new_session(capsys, store_path, seed=1)
    answers = tmp_path / "answers.txt"
    answers.write_text("# ana's answers\n" + "\n".join(_replay_answers(store_path, session_id)) + "\n")
    code, out, err = _run(capsys, "agreement", "judge", str(session_id), "--store", str(store_path),
                          "--reviewer", "ana", "--answers", str(answers))
    assert code == 0, err
    assert _judged(store_path, session_id, "ana") == 4 and out.count("you agree") == 4
    code, out, _err = _run(capsys, "agreement", "--store", str(store_path), "--session", str(session_id))
    assert code == 0 and "4/4" in out


def test_kappa_on_four_items_says_too_few_for_an_interval(
    capsys: pytest.CaptureFixture[str], store_path: Path, tmp_path: Path,
) -> None:
    session_id = _new_session(capsys, store_path, seed=6)
    answers = tmp_path / "answers.txt"
    answers.write_text("\n".join(_replay_answers(store_path, session_id)) + "\n")
    _run(capsys, "agreement", "judge", str(session_id), "--store", str(store_path), "--reviewer", "fe",
         "--answers", str(answers))
    code, out, _err = _run(capsys, "agreement", "--store", str(store_path), "--session", str(session_id))
    kappa = next(line for line in out.splitlines() if line.strip().startswith("kappa:"))
    assert code == 0 and "too few items for an interval" in kappa and "[" not in kappa


def test_judge_shows_the_guis_blind_view_before_the_reveal(
    capsys: pytest.CaptureFixture[str], store_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    session_id = _new_session(capsys, store_path, seed=2)
    store = open_store(store_path)
    try:
        item = next_item(store, session_id, "bo")
        assert item is not None
        view = judging_view(store, item)
    finally:
        store.close()
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    code, out, _err = _run(capsys, "agreement", "judge", str(session_id), "--store", str(store_path), "--reviewer", "bo")
    assert code == 0 and "stopped: 0 judged" in out
    for text in (view.heading, view.rule, view.question, *(label for _a, label in view.choices)):
        assert text in out
    assert view.trajectory is None or view.trajectory.splitlines()[0] in out
    assert "replay said" not in out and "revealed" not in out


def test_judge_interactively_by_number_commits_and_then_reveals(
    capsys: pytest.CaptureFixture[str], store_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    session_id = _new_session(capsys, store_path, seed=3)
    # Every item: "0" (can't tell: no scope question follows). Four items, then the session is done.
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n0\n0\n0\n"))
    code, out, err = _run(capsys, "agreement", "judge", str(session_id), "--store", str(store_path),
                          "--reviewer", "cy")
    assert code == 0, err
    assert _judged(store_path, session_id, "cy") == 4
    assert out.index("committed: can't tell") > out.index("Item 1 of 4")
    assert "the session is finished for you" in out


def test_a_bad_answers_file_is_one_line_and_commits_nothing(
    capsys: pytest.CaptureFixture[str], store_path: Path, tmp_path: Path,
) -> None:
    session_id = _new_session(capsys, store_path, seed=4)
    answers = tmp_path / "answers.txt"
    answers.write_text("1 does_not_fire\n2 nearmiss\n")
    code, _out, err = _run(capsys, "agreement", "judge", str(session_id), "--store", str(store_path),
                           "--reviewer", "di", "--answers", str(answers))
    assert code == 1
    assert err.count("\n") == 1 and f"{answers}, line 2, field answer: expected one of" in err
    assert "'nearmiss'" in err and "Traceback" not in err
    assert _judged(store_path, session_id, "di") == 0


def test_an_answer_that_is_not_the_items_choice_stops_there_and_keeps_earlier_ones(
    capsys: pytest.CaptureFixture[str], store_path: Path, tmp_path: Path,
) -> None:
    session_id = _new_session(capsys, store_path, seed=5)
    lines = _replay_answers(store_path, session_id)
    kinds = ["pass", "fail", "inconclusive"]
    second = lines[1].split()
    wrong = "pass" if second[1] not in kinds else "prevents"  # the other question's vocabulary
    answers = tmp_path / "answers.txt"
    answers.write_text("\n".join([lines[0], f"{second[0]} {wrong}", *lines[2:]]) + "\n")
    code, _out, err = _run(capsys, "agreement", "judge", str(session_id), "--store", str(store_path),
                           "--reviewer", "ed", "--answers", str(answers))
    assert code == 1 and f"{answers}, line 2, field answer: item 2 is answered with one of" in err
    assert _judged(store_path, session_id, "ed") == 1  # item 1's judgement stays: judgements are final


def test_new_without_a_complete_run_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    Store.close(open_store(empty))
    code, _out, err = _run(capsys, "agreement", "new", "--store", str(empty), "--by", "lead")
    assert code == 1 and err.startswith("error: no complete replay run in this store")
