"""Two reviewers' stores merge into one: no-ops, both kept, conflicts reported; agreement and disagreements."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_labels_support import Builder, open_labels_store, small_run

from core.agreement.merge import BadTeamFile
from core.agreement.session import commit_judgement, create_session, next_item
from core.agreement.team import adjudicate, export_reviewer, import_file, judgement_agreement, label_agreement
from core.domain.labels import LabelText
from core.labels.service import save_label
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store
from core.store.label_repo import LabelRepository

PUSH = LabelText("git push is rejected as non-fast-forward", "pull --rebase, then push")
PUSH_OTHER = LabelText("the deploy token has expired", "refresh the token")


def _store(path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    store = open_labels_store(path, monkeypatch)
    small_run(store)  # both machines imported the same corpus and ran the same replay
    Builder(store).trajectories("T1", "T2", "T3", "T4")
    return store


def _pk(store: Store, tid: str) -> int:
    return next(t.id for t in Builder(store).corpora.list_trajectories(limit=1000) if t.trajectory_id == tid)


def _replay_answers(store: Store, session_id: int, reviewer: str, overrides: dict[str, str]) -> None:
    """Judge every item: replay's answer, except items named in ``overrides`` (rule origin or trajectory id)."""
    answers = {i.id: i for i in AgreementRepository(store).items_with_answers(session_id)}
    while (item := next_item(store, session_id, reviewer)) is not None:
        record = answers[item.item_id]
        name = record.rule_origin if record.kind == "verdict" else (record.trajectory_key or {})["trajectory_id"]
        commit_judgement(store, item.item_id, reviewer, overrides.get(name, record.replay_answer))


ANA = {"R2": "inconclusive", "N1": "prevents", "F5": "cant_tell"}


def test_two_stores_merge_and_agreement_is_right(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = _store(tmp_path / "ana.sqlite", monkeypatch)
    b = _store(tmp_path / "bo.sqlite", monkeypatch)
    la, lb = LabelRepository(a), LabelRepository(b)
    save_label(a, _pk(a, "T1"), "ana", PUSH)
    save_label(a, _pk(a, "T2"), "ana", PUSH)
    save_label(a, _pk(a, "T3"), "ana", PUSH)
    save_label(b, _pk(b, "T1"), "bo", PUSH)  # same words as Ana
    save_label(b, _pk(b, "T2"), "bo", PUSH_OTHER)  # disagrees with Ana
    save_label(b, _pk(b, "T4"), "bo", PUSH)
    save_label(b, _pk(b, "T3"), "ana", PUSH_OTHER)  # Ana also worked on Bo's machine, differently

    session = create_session(a, small_run_id(a), "ana", size=11, seed=5)
    _replay_answers(a, session.id, "ana", ANA)

    # Ana -> Bo: the session travels with her judgements; her T3 label conflicts and is not applied.
    export_reviewer(a, "ana", tmp_path / "ana.json")
    report = import_file(b, tmp_path / "ana.json", importer="bo")
    assert report.added == {"labels": 2, "sessions": 1, "judgements": 11}
    assert [(c.kind, c.reviewer) for c in report.conflicts] == [("label", "ana")]
    assert lb.get(_pk(b, "T3"), "ana").text == PUSH_OTHER  # type: ignore[union-attr]  # nothing overwritten
    again = import_file(b, tmp_path / "ana.json", importer="bo")
    assert again.added == {} and again.unchanged == {"labels": 2, "sessions": 1, "judgements": 11}

    # Bo judges the imported session blind (all replay's answers), then Bo -> Ana.
    bo_session = AgreementRepository(b).session(session.uid)
    _replay_answers(b, bo_session.id, "bo", {})
    export_reviewer(b, "bo", tmp_path / "bo.json")
    report = import_file(a, tmp_path / "bo.json", importer="ana")
    assert report.added == {"labels": 3, "judgements": 11} and report.conflicts == ()
    assert report.unchanged == {"sessions": 1}

    # Labels: T1 identical, T2 disagrees; T3 and T4 have one label each.
    labels = label_agreement(a)
    assert (labels.trajectories, labels.pairs) == (2, 2)
    assert (labels.identical.k, labels.identical.n) == (1, 2)
    assert (labels.agreement.k, labels.agreement.n) == (1, 2)
    assert [d.trajectory_id for d in labels.disagreements] == ["T2"]
    dis = labels.disagreements[0]
    assert dis.labels == {"ana": PUSH.sentence(), "bo": PUSH_OTHER.sentence()} and not dis.comparator_agrees

    # Judgements: Bo == replay, so Ana-vs-Bo equals Ana-vs-replay on the 10 items both decided.
    judged = judgement_agreement(a, session.uid)
    assert judged.reviewers == ("ana", "bo") and judged.items == 10
    assert (judged.percent.k, judged.percent.n) == (8, 10)
    assert judged.cohen is not None and judged.cohen.value == pytest.approx(16 / 23)
    # Alpha by hand: 20 pairable values, 4 disagreeing ordered pairs, sum n_c^2 = 84:
    # 1 - (n - 1) * 4 / (n^2 - 84) = 1 - 76/316.
    assert judged.alpha.value == pytest.approx(1 - 76 / 316)
    assert sorted((d.answers["ana"], d.answers["bo"]) for d in judged.disagreements) == [
        ("inconclusive", "fail"), ("prevents", "near_miss")
    ]

    # The lead adjudicates T2; it becomes ground truth and shows in the disagreement view.
    adjudicate(a, "lead", _pk(a, "T2"), "bo", reason="the log shows an expired token")
    assert la.ground_truth(_pk(a, "T2"), "ana").sentence == PUSH_OTHER.sentence()
    assert label_agreement(a).disagreements[0].adjudicated == PUSH_OTHER.sentence()
    a.close()
    b.close()


def small_run_id(store: Store) -> int:
    from core.store.replay_repo import ReplayRepository

    run = ReplayRepository(store).latest_complete_run()
    assert run is not None
    return run.id


def test_three_reviewers_get_fleiss_kappa(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path / "s.sqlite", monkeypatch)
    session = create_session(store, small_run_id(store), "lead", size=11, seed=5)
    _replay_answers(store, session.id, "ana", ANA)
    _replay_answers(store, session.id, "bo", {})
    _replay_answers(store, session.id, "cy", {})
    result = judgement_agreement(store, session.id)
    assert result.cohen is None and result.fleiss is not None
    # 10 complete units: 8 unanimous (P_i = 1), 2 split 1-2 (P_i = 1/3); 30 ratings with category
    # totals 3, 2, 4, 10, 2, 6, 3 -> P_e = 178/900.
    p_bar, p_e = (8 + 2 / 3) / 10, 178 / 900
    assert result.fleiss.value == pytest.approx((p_bar - p_e) / (1 - p_e))
    assert result.fleiss.subjects == 10
    store.close()


def test_an_adjudication_travels_and_a_different_one_is_a_conflict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = _store(tmp_path / "a.sqlite", monkeypatch)
    b = _store(tmp_path / "b.sqlite", monkeypatch)
    adjudicate(a, "lead", _pk(a, "T1"), PUSH, reason="agreed in review")
    export_reviewer(a, "lead", tmp_path / "lead.json")
    assert import_file(b, tmp_path / "lead.json", "bo").added == {"adjudications": 1}
    assert LabelRepository(b).ground_truth(_pk(b, "T1")).source == "adjudicated"
    adjudicate(a, "lead", _pk(a, "T1"), PUSH_OTHER, reason="changed my mind")
    export_reviewer(a, "lead", tmp_path / "lead.json")
    report = import_file(b, tmp_path / "lead.json", "bo")
    assert [c.kind for c in report.conflicts] == ["adjudication"]
    assert LabelRepository(b).ground_truth(_pk(b, "T1")).sentence == PUSH.sentence()
    a.close()
    b.close()


def test_a_file_that_fails_midway_imports_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = _store(tmp_path / "ana.sqlite", monkeypatch)
    b = _store(tmp_path / "bo.sqlite", monkeypatch)
    save_label(a, _pk(a, "T1"), "ana", PUSH)
    session = create_session(a, small_run_id(a), "ana", size=11, seed=5)
    _replay_answers(a, session.id, "ana", ANA)
    export_reviewer(a, "ana", tmp_path / "ana.json")
    payload = json.loads((tmp_path / "ana.json").read_text(encoding="utf-8"))
    del payload["judgements"][-1]["answer"]  # the last entry is read after labels, the session and 10 judgements
    (tmp_path / "ana.json").write_text(json.dumps(payload), encoding="utf-8")

    with pytest.raises(BadTeamFile, match=r"ana\.json: a malformed entry \(missing field 'answer'\)"):
        import_file(b, tmp_path / "ana.json", importer="bo")

    assert LabelRepository(b).labels_for(_pk(b, "T1")) == []
    assert AgreementRepository(b).sessions() == []
    assert AgreementRepository(b).judgements() == []
