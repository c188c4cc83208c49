"""A blind 30-item session on the demo corpus: judged halfway, store closed and reopened, finished;
the results API and the CLI print the same numbers."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from test_labels_support import import_demo, open_labels_store

from core.agreement.results import session_result
from core.agreement.session import commit_judgement, create_session, next_item, progress
from core.cli.agreement import register
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store


def _replay_demo(store: Store) -> int:
    replaying = pytest.importorskip("core.replaying", reason="the replay engine is not importable yet")
    from core.replay.profiles import profile_by_name

    replaying.materialise_expected_rules(store)
    summary = replaying.run_replay(store, profile_by_name("reference-0.3.1"))
    assert summary.status == "complete"
    return summary.run_id


def _answer(choices: tuple[str, ...], truth: str, ordinal: int) -> str:
    """Agree with replay except on every fourth item (a wrong, decisive answer there)."""
    if ordinal % 4:
        return truth
    return next(c for c in choices if c not in (truth, "cant_tell"))


def _judge(store: Store, session_id: int, truth: dict[int, str], count: int) -> None:
    for _ in range(count):
        item = next_item(store, session_id, "ana")
        assert item is not None and item.replay_answer is None  # blind
        reveal = commit_judgement(store, item.item_id, "ana", _answer(item.choices, truth[item.item_id], item.ordinal))
        assert reveal.replay_answer == truth[item.item_id]


def test_blind_session_resumes_after_restart_and_cli_agrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "demo.sqlite"
    store = open_labels_store(path, monkeypatch)
    import_demo(store)
    run_id = _replay_demo(store)
    session = create_session(store, run_id, "lead", size=30, seed=2026)
    assert session.size == 30 and session.blind
    assert {s.split(":")[0] for s in session.strata} == {"verdict", "evidence"}
    truth = {i.id: i.replay_answer for i in AgreementRepository(store).items_with_answers(session.id)}
    _judge(store, session.id, truth, 15)
    store.close()  # the app is closed halfway

    store = open_labels_store(path, monkeypatch)
    assert progress(store, session.uid, "ana").committed == 15
    assert next_item(store, session.uid, "ana").ordinal == 16  # type: ignore[union-attr]
    _judge(store, session.id, truth, 15)
    assert next_item(store, session.id, "ana") is None

    result = session_result(store, session.uid)
    wrong = 30 // 4  # ordinals 4, 8, ..., 28
    assert (result.comparison.agreement.k, result.comparison.agreement.n) == (30 - wrong, 30)
    assert result.progress == {"ana": 30}
    assert sum(sum(row) for row in result.comparison.confusion.counts) == 30
    assert sum(s.agreement.n for s in result.comparison.per_stratum) == 30
    assert result.comparison.gate.state in ("pass", "fail", "not enough data")
    assert result.comparison.kappa.value is not None

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["agreement", "--store", str(path), "--session", session.uid, "--json"])
    assert args.func(args, store) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(result.to_dict()))
    args = parser.parse_args(["agreement", "--store", str(path)])
    assert args.func(args, store) == 0
    text = capsys.readouterr().out
    assert f"agreement: {30 - wrong}/30" in text and "unblinded workspace marks" in text
    store.close()
